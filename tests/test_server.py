"""The fixture's server is a real Neo4j that really runs GDS."""

from graphdatascience import GraphDataScience


def test_gds_runs_label_propagation_and_knn(g, neo4j_settings):
    g.db.run_text(
        "UNWIND range(0, 5) AS i CREATE (:Probe {i: i, v: [toFloat(i % 2), 1.0]})"
    )
    g.db.run_text(
        "MATCH (a:Probe), (b:Probe) WHERE a.i < b.i AND a.i % 2 = b.i % 2 CREATE (a)-[:P]->(b)"
    )
    rows = g.db.run_text(
        "MATCH (a:Probe)-[:P]->(b:Probe) WITH gds.graph.project('probe', a, b, "
        "{sourceNodeProperties: a {.v}, targetNodeProperties: b {.v}}, {undirectedRelationshipTypes: ['*']}) AS gr "
        "CALL gds.labelPropagation.stream('probe', {concurrency: 1}) YIELD nodeId, communityId "
        "RETURN gds.util.asNode(nodeId).i AS i, communityId ORDER BY i"
    )
    community = {r["i"]: r["communityId"] for r in rows}
    assert community[0] == community[2] == community[4]
    assert community[1] == community[3] == community[5]
    assert community[0] != community[1]
    knn = g.db.run_text(
        "CALL gds.knn.stream('probe', {nodeProperties: ['v'], topK: 1, concurrency: 1, randomSeed: 7}) "
        "YIELD node1, node2, similarity RETURN gds.util.asNode(node1).i % 2 AS a, gds.util.asNode(node2).i % 2 AS b, similarity"
    )
    assert knn and all(r["a"] == r["b"] and r["similarity"] > 0.99 for r in knn)


def test_python_gds_client_connects_to_open_source_gds(g, neo4j_settings):
    gds = GraphDataScience(neo4j_settings.uri, auth=(neo4j_settings.user, neo4j_settings.resolved_password()))
    try:
        assert str(gds.server_version()).startswith("2.13")
        assert gds.run_cypher("RETURN gds.similarity.cosine([1.0, 0.0], [0.0, 1.0]) AS c")["c"][0] == 0.0
    finally:
        gds.close()


def test_browser_is_served(neo4j_settings):
    import os
    import urllib.request

    import pytest

    if os.environ.get("NEO4J_URI") and not os.environ.get("GRAPHCONS_NEO4J_HTTP_PORT"):
        pytest.skip("server given by NEO4J_URI: its HTTP port is unknown")
    port = os.environ.get("GRAPHCONS_NEO4J_HTTP_PORT", "7474")
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/browser/", timeout=10) as resp:
        page = resp.read().decode("utf-8", "replace")
    assert resp.status == 200 and "Neo4j Browser" in page
