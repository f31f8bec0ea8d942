"""GDS placement (issue 33): the fused projection and the detectors driven through the
graphdatascience client give the clusters graphcons' own Cypher procedure calls give, on the real
local Neo4j + GDS; the remote projection query an Aura Graph Analytics session would run selects
the same graph; a sessions configuration without credentials fails with a message naming them.

A real session needs an Aura account with Graph Analytics enabled: not exercised here (docs/SCALE.md).
"""

from __future__ import annotations

import pytest
from test_scan_equivalence import NAMESPACES, _graph, _random_graph

from graphcons.consolidation import fusion, placement, scan as scanning, split as splitting
from graphcons.core.config import Config, GdsConfig, load_config
from graphcons.core.errors import ConfigError
from graphcons.store import tie


def _parts(g, name: str) -> tuple:
    """A split projection: its nodes by label and its weighted relationships."""
    rows = g.db.run_text("CALL gds.graph.list($g) YIELD nodeCount, schemaWithOrientation RETURN nodeCount, "
                         "schemaWithOrientation.nodes AS labels", g=name)
    rels = g.db.run_text("CALL gds.graph.relationshipProperty.stream($g, 'weight', ['*'], {concurrency: 1}) "
                         "YIELD sourceNodeId, targetNodeId, propertyValue "
                         "RETURN sourceNodeId, targetNodeId, propertyValue", g=name)
    return ((rows[0]["nodeCount"], sorted(rows[0]["labels"])),
            sorted((r["sourceNodeId"], r["targetNodeId"], r["propertyValue"]) for r in rels))


@pytest.mark.parametrize("algorithm", ["label_propagation", "leiden"])
def test_the_client_on_the_plugin_finds_the_clusters_the_procedures_find(g, algorithm, monkeypatch):
    _random_graph(g)
    streamed = []  # the client's own stream calls: the second path really goes through graphdatascience
    real = placement.ClientGds.detect_members
    monkeypatch.setattr(placement.ClientGds, "detect_members",
                        lambda self, *a, **k: streamed.append(type(self.gds).__name__) or real(self, *a, **k))
    cc = g.config.consolidation
    cc.link_kind_weights = {"caused_by": 0.5, "same_root_cause": 1.5}
    for namespace in (None, "team-b"):
        proj, clusters, members, _ = scanning.detect_members(g.db, cc, namespace=namespace, algorithm=algorithm)
        via, via_clusters, via_members, _ = scanning.detect_members(
            g.db, cc, namespace=namespace, algorithm=algorithm, gds=GdsConfig(client=True))
        assert len(clusters) > 5
        assert via_clusters == clusters
        assert [c.key for c in via_clusters] == [c.key for c in clusters]
        assert via_members == members  # what the gate reads about each member, node ids included
        assert (via.nodes, via.relationships, via.total_weight) == (proj.nodes, proj.relationships, proj.total_weight)
        assert (via.edges.source.tolist(), via.edges.weight.tolist()) == (proj.edges.source.tolist(),
                                                                         proj.edges.weight.tolist())
    assert streamed == ["GraphDataScience", "GraphDataScience"]
    # Nothing is left in the catalogue by either path.
    assert g.db.run_text("CALL gds.graph.list() YIELD graphName RETURN count(*) AS n")[0]["n"] == 0


def test_a_scan_through_the_client_decides_what_a_scan_through_the_procedures_decides(g):
    _random_graph(g)
    base = g.config
    now = __import__("datetime").datetime(2026, 12, 3, tzinfo=__import__("datetime").timezone.utc)
    want = scanning.scan(g.db, base, now=now)
    client_cfg = base.model_copy(update={"gds": GdsConfig(client=True)})
    got = scanning.scan(g.db, client_cfg, now=now)
    assert [(d.key, d.accepted, d.reasons, d.figures) for d in got.decisions] == \
        [(d.key, d.accepted, d.reasons, d.figures) for d in want.decisions]
    assert got.consolidation_due == want.consolidation_due and got.decisions


def test_oversized_communities_split_through_the_client_into_the_parts_the_procedures_find(g):
    _random_graph(g)
    cc = g.config.consolidation
    cc.max_size = 8  # the planted groups join into communities over it
    _, clusters, _ = scanning.detect(g.db, cc)
    big = [c for c in clusters if c.size > cc.max_size]
    assert len(big) >= 2
    via = GdsConfig(client=True)
    want, got = splitting.split_many(g.db, cc, big), splitting.split_many(g.db, cc, big, gds=via)
    assert {k: (s.parts, s.gamma, s.level) for k, s in got.items()} == \
        {k: (s.parts, s.gamma, s.level) for k, s in want.items()}
    assert any(s.parts for s in want.values())
    alone = splitting.split(g.db, cc, big[0], level=1)
    assert splitting.split(g.db, cc, big[0], level=1, gds=via).parts == alone.parts


def test_the_remote_projection_query_selects_the_graph_the_plugin_projects(g):
    """The session's query is clusters/project's selection ending in gds.graph.project.remote; run
    here with the plugin's gds.graph.project in its place, it builds the same graph."""
    _random_graph(g)
    cc = g.config.consolidation
    remote = placement.remote_query()
    assert "gds.graph.project.remote(" in remote and "RETURN gds.graph.project.remote" in remote
    local = remote.replace("gds.graph.project.remote(", "gds.graph.project($graph_name, ")
    params = {**tie.params(), **fusion.weight_params(cc)}
    for namespace, subjects in ((None, None), ("team-b", None), (NAMESPACES[False], ["ops", "billing"])):
        ours, theirs = fusion.new_graph_name("plugin"), fusion.new_graph_name("remote")
        fusion.project(g.db, cc, ours, namespace=namespace, subjects=subjects)
        try:
            g.db.run_text(local, graph_name=theirs, namespace=namespace, subjects=subjects, **params)
            g.db.run("clusters/undirected", graph_name=theirs)  # what the session does next
            assert _graph(g, theirs) == _graph(g, ours)
        finally:
            fusion.drop(g.db, ours)
            fusion.drop(g.db, theirs)
    # The split's subgraphs: clusters/project_parts (its 5th argument makes it undirected; the session
    # gets undirected_relationship_types instead).
    _, clusters, _ = scanning.detect(g.db, cc)
    label = {m: f"P{i}" for i, c in enumerate(clusters) for m in c.member_ids}
    parts = {**{k: v for k, v in fusion.weight_params(cc).items() if k != "live"}, "label": label}
    remote = placement.remote_query("clusters/project_parts")
    assert remote.rstrip().endswith(") AS g")
    local = remote.replace("RETURN gds.graph.project.remote(", "WITH gds.graph.project($graph_name, ").rstrip()
    local = local[:-len(") AS g")] + ", {undirectedRelationshipTypes: ['*']}) AS g RETURN g.graphName AS graph"
    ours, theirs = fusion.new_graph_name("parts"), fusion.new_graph_name("parts-remote")
    g.db.run("clusters/project_parts", graph_name=ours, **parts)
    try:
        g.db.run_text(local, graph_name=theirs, **parts)
        assert _parts(g, theirs) == _parts(g, ours) and _parts(g, ours)[1]
    finally:
        fusion.drop(g.db, ours)
        fusion.drop(g.db, theirs)


def test_the_client_reads_after_this_process_writes(g):
    # On a cluster the projection may read from a secondary: it must start after what was just admitted.
    g.add({"content": "Checkout returned 503 after the deploy.", "namespace": "ops"})
    client = placement.connect(g.db, GdsConfig(client=True))
    try:
        given = client.gds.bookmarks()
        assert given is not None and set(given.raw_values) == set(g.db.bookmarks.get_bookmarks())
        proj = client.project(g.db, g.config.consolidation, "bookmarked", namespace="ops", with_edges=False)
        assert proj.nodes == 1  # the memory admitted just before is in the projection
        client.drop("bookmarked")
    finally:
        client.close()


def test_sessions_without_credentials_say_what_to_set(g, monkeypatch):
    for var in (*placement.CREDENTIAL_VARS, placement.PROJECT_VAR):
        monkeypatch.delenv(var, raising=False)
    cfg = g.config.model_copy(update={"gds": GdsConfig(backend="sessions")})
    assert cfg.gds.client  # a session is reachable only through the client
    with pytest.raises(ConfigError) as err:
        scanning.scan(g.db, cfg, now=__import__("datetime").datetime(2026, 12, 3,
                                                                     tzinfo=__import__("datetime").timezone.utc))
    text = str(err.value)
    assert "GRAPHCONS_AURA_CLIENT_ID" in text and "GRAPHCONS_AURA_CLIENT_SECRET" in text and "plugin" in text
    # Nothing was recorded for the scan that could not run.
    assert g.db.run_text("MATCH (r:ConsolidationRun) RETURN count(r) AS n")[0]["n"] == 0


def test_gds_settings_are_checked_when_the_configuration_is_read(tmp_path):
    bad = tmp_path / "graphcons.toml"
    bad.write_text('[gds]\nbackend = "aura"\n')
    with pytest.raises(ConfigError) as err:
        load_config(bad)
    assert "gds.backend" in str(err.value)
    bad.write_text('[gds]\nbackend = "sessions"\nsession_memory = "3GB"\n')
    with pytest.raises(ConfigError) as err:
        load_config(bad)
    assert "gds.session_memory" in str(err.value)
    assert Config().gds.backend == "plugin" and not Config().gds.client


def test_a_total_summed_in_another_row_order_is_the_same_total():
    """Cypher sums the projection's weights in arrival order; the two clients saw the rows in
    different orders and differed in the last bit (CI). The projection's total, and the Leiden
    resolution derived from it, must not."""
    from graphcons.consolidation.communities import Leiden

    weights = [0.1 * i + 1 / 3 for i in range(200)]
    one, other = sum(weights), sum(reversed(weights))
    assert one != other  # the float sums really differ
    a = fusion.Projection("a", nodes=200, relationships=400, total_weight=one)
    b = fusion.Projection("b", nodes=200, relationships=400, total_weight=other)
    assert a.total_weight == b.total_weight
    leiden = Leiden(density=0.5)
    assert leiden.resolution(a) == leiden.resolution(b)
