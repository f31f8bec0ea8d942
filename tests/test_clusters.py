"""Cluster discovery on a real Neo4j + GDS (issue 3): the fused graph and its communities.

Planted clusters are found from each signal alone and from their fusion, unrelated memories
stay out, namespaces never mix, retired memories are left out, an insight does not cluster
with the members it summarises, and the same graph gives the same clusters every time.
"""

from __future__ import annotations

import pytest
from clusters_helpers import (
    DISTINCT,
    INCIDENTS_503,
    add_all,
    cluster_of,
    keyset,
    link_clique,
)

from graphcons.consolidation.cluster import cluster_key
from graphcons.core.config import load_config
from graphcons.core.errors import ConfigError, ValidationError

ALGORITHMS = ["label_propagation", "leiden"]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_similarity_alone_finds_the_planted_cluster_and_leaves_noise_out(g, algorithm):
    incidents = add_all(g, INCIDENTS_503, subject="checkout", kind="incident")
    noise = add_all(g, DISTINCT[:6], subject="checkout")
    scores = g.db.run_text("MATCH (:Memory)-[s:SIMILAR]->(:Memory) RETURN min(s.score) AS lo, count(s) AS n")[0]
    assert scores["n"] >= 8 and scores["lo"] >= 0.82  # similarity edges only, all above the floor

    clusters = g.clusters(algorithm=algorithm)

    assert [c.member_ids for c in clusters] == [tuple(sorted(incidents))]
    assert clusters[0].key == cluster_key(incidents)
    assert clusters[0].subject == "checkout" and clusters[0].namespace == "default"
    assert all(cluster_of(clusters, n) is None for n in noise)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_links_alone_find_the_planted_cluster(g, algorithm):
    ids = add_all(g, DISTINCT[:10], subject="ops")
    assert g.db.run_text("MATCH ()-[s:SIMILAR]->() RETURN count(s) AS n")[0]["n"] == 0
    a, b = ids[:4], ids[4:8]
    for group in (a, b):
        link_clique(g, group, "same_root_cause")

    clusters = g.clusters(algorithm=algorithm)

    assert sorted(c.member_ids for c in clusters) == sorted([tuple(sorted(a)), tuple(sorted(b))])
    assert cluster_of(clusters, ids[8]) is None and cluster_of(clusters, ids[9]) is None


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_coaccess_alone_finds_the_planted_cluster(g, algorithm):
    ids = add_all(g, DISTINCT[:9], subject="ops")
    used_together, bystanders = ids[:5], ids[5:]
    g.access("s1", used_together)
    g.access("s2", used_together[:3])
    g.access("s3", [bystanders[0]])
    g.access("s4", [bystanders[1]])

    clusters = g.clusters(algorithm=algorithm)

    assert [c.member_ids for c in clusters] == [tuple(sorted(used_together))]


def test_the_fused_graph_finds_a_cluster_held_together_by_all_three_signals(g):
    """Three similar incidents plus two memories tied to them by links and co-access."""
    sim = add_all(g, INCIDENTS_503[:3], subject="checkout")
    d0, d1, noise = add_all(g, DISTINCT[:3], subject="checkout")
    for a, b in ((d0, sim[0]), (d0, sim[1]), (d1, sim[1]), (d1, sim[2])):
        g.link(a, b, "caused_by")
    g.access("s1", [d0, sim[2]])
    g.access("s2", [d1, sim[0]])
    g.access("s3", [d0, d1])

    fused = g.clusters()
    assert [c.member_ids for c in fused] == [tuple(sorted([*sim, d0, d1]))]
    assert cluster_of(fused, noise) is None

    # With the link and co-access signals weighted 0, only the similarity triangle remains.
    g.config.consolidation.link_weight = 0.0
    g.config.consolidation.coaccess_weight = 0.0
    assert [c.member_ids for c in g.clusters()] == [tuple(sorted(sim))]


def test_heavy_coaccess_saturates_and_does_not_drown_the_other_signals(g):
    """A pair used together in many sessions weighs less than 1; a link of weight 1 outweighs it."""
    ids = add_all(g, DISTINCT[:3], subject="ops")
    for s in range(12):
        g.access(f"s{s}", [ids[0], ids[1]])
    w = g.db.run_text("MATCH (:Memory)-[c:CO_ACCESSED]->(:Memory) RETURN c.count AS n")[0]["n"]
    assert w == 12
    from graphcons.consolidation import fusion

    name = fusion.new_graph_name("test-saturation")
    fusion.project(g.db, g.config.consolidation, name)
    try:
        rows = g.db.run_text(
            "CALL gds.graph.relationshipProperty.stream($g, 'weight') YIELD propertyValue RETURN max(propertyValue) AS w",
            g=name)
    finally:
        fusion.drop(g.db, name)
    assert 0.9 < rows[0]["w"] < 1.0  # 12 / (12 + coaccess_k=1)


def test_namespaces_never_share_a_cluster(g):
    a = add_all(g, INCIDENTS_503[:3], subject="checkout", namespace="team-a")
    b = add_all(g, INCIDENTS_503[3:], subject="checkout", namespace="team-b")
    # Cross-namespace links and co-access exist in the store; the projection ignores them.
    for x in a:
        for y in b:
            g.link(x, y, "related")
    g.access("mixed", a + b)

    clusters = g.clusters()

    assert {c.member_ids for c in clusters} == {tuple(sorted(a)), tuple(sorted(b))}
    assert {c.namespace for c in clusters} == {"team-a", "team-b"}
    only_b = g.clusters(namespace="team-b")
    assert [c.member_ids for c in only_b] == [tuple(sorted(b))]


def test_deprecated_and_archived_memories_are_left_out(g):
    ids = add_all(g, INCIDENTS_503, subject="checkout")
    # Retirement is issue 5's job; here the status is set directly to build the case.
    g.db.run_text("MATCH (m:Memory) WHERE m.id IN $ids SET m.status = 'deprecated'", ids=ids[:1])
    g.db.run_text("MATCH (m:Memory) WHERE m.id IN $ids SET m.status = 'archived'", ids=ids[1:2])

    clusters = g.clusters()

    assert [c.member_ids for c in clusters] == [tuple(sorted(ids[2:]))]
    assert g.db.run_text("MATCH (m:Memory) RETURN count(m) AS n")[0]["n"] == 5  # nothing deleted


def test_insights_cluster_among_insights_not_with_their_own_members(g):
    members = add_all(g, INCIDENTS_503[:3], subject="checkout")
    insight = g.add({"content": INCIDENTS_503[3], "subject": "checkout", "kind": "insight"}).id
    # SUMMARIZES edges are written by synthesis (issue 4); built directly for this case.
    g.db.run_text("MATCH (i:Memory {id: $i}), (m:Memory) WHERE m.id IN $ms CREATE (i)-[:SUMMARIZES {version: 1}]->(m)",
                  i=insight, ms=members)
    assert g.db.run_text("MATCH (i:Memory {id: $i})-[s:SIMILAR]-() RETURN count(s) AS n", i=insight)[0]["n"] >= 3

    clusters = g.clusters()
    assert [c.member_ids for c in clusters] == [tuple(sorted(members))]  # the insight is not pulled in

    # Three insights linked together form a cluster of their own: insights over insights.
    more = add_all(g, DISTINCT[:2], subject="checkout", kind="insight")
    g.link(insight, more[0], "related")
    g.link(more[0], more[1], "related")
    g.link(insight, more[1], "related")
    clusters = g.clusters()
    assert cluster_of(clusters, insight).member_ids == tuple(sorted([insight, *more]))
    assert cluster_of(clusters, members[0]).member_ids == tuple(sorted(members))


def _mixed_graph(g):
    """Two similarity clusters, two linked clusters and a co-accessed one, plus noise."""
    add_all(g, INCIDENTS_503, subject="checkout")
    ids = add_all(g, DISTINCT[:20], subject="ops")
    for group in (ids[0:4], ids[4:9]):
        link_clique(g, group)
    g.access("s1", ids[9:13])
    g.access("s2", ids[9:13])
    g.link(ids[13], ids[14], "related")  # a pair: size-2 cluster
    g.link(ids[3], ids[4], "related")  # a bridge between the two linked groups
    return ids


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_same_graph_same_clusters_in_five_runs(g, algorithm):
    _mixed_graph(g)
    runs = [keyset(g.clusters(algorithm=algorithm)) for _ in range(5)]
    assert len(runs[0]) >= 4
    assert all(r == runs[0] for r in runs)
    # Same verdicts too.
    verdicts = [[(d.key, d.accepted, tuple(d.rejected_by)) for d in g.scan(algorithm=algorithm).decisions]
                for _ in range(2)]
    assert verdicts[0] == verdicts[1]


def test_a_bad_algorithm_or_namespace_is_refused_naming_the_field(g, tmp_path):
    with pytest.raises(ValidationError) as exc:
        g.clusters(algorithm="louvain")
    assert exc.value.field == "consolidation.algorithm"
    with pytest.raises(ValidationError) as exc:
        g.scan(namespace="  ")
    assert exc.value.field == "namespace"
    bad = tmp_path / "graphcons.toml"
    bad.write_text('[consolidation]\nalgorithm = "louvain"\n')
    with pytest.raises(ConfigError, match="consolidation.algorithm"):
        load_config(bad, env={})
    bad.write_text('[consolidation]\nleiden_gamma = 0\n')
    with pytest.raises(ConfigError, match="consolidation.leiden_gamma"):
        load_config(bad, env={})


def test_label_propagation_does_not_flood_an_unweighted_ring_of_cliques(g):
    """Equal votes everywhere (links only, one kind): ties must not pour one label over all."""
    # Fixed ids: tie-breaking hashes the ids, and admission derives ids from the wall clock,
    # so only fixed ids make this the same graph on every run.
    ids = [g.add({"content": t, "subject": "ops", "id": f"ring-{n:02d}"}).id for n, t in enumerate(DISTINCT[:20])]
    groups = [ids[i:i + 5] for i in range(0, 20, 5)]
    for group in groups:
        link_clique(g, group)
    for a, b in zip(groups, groups[1:] + groups[:1]):  # a ring: one link between neighbouring cliques
        g.link(a[0], b[1], "related")

    clusters = g.clusters(algorithm="label_propagation")

    assert sorted(c.member_ids for c in clusters) == sorted(tuple(sorted(x)) for x in groups)


def test_leiden_resolution_is_derived_from_density_or_fixed(g):
    from graphcons.consolidation import communities, fusion

    ids = add_all(g, DISTINCT[:6], subject="ops")
    for a, b in zip(ids, ids[1:]):
        g.link(a, b, "related")
    cc = g.config.consolidation
    name = fusion.new_graph_name("test-resolution")
    proj = fusion.project(g.db, cc, name)
    try:
        assert proj.nodes == 6 and proj.total_weight == 5.0
        derived = communities.make_detector(cc, "leiden").config(proj)
        assert derived["gamma"] == cc.leiden_density * 6 / (2 * 5.0 / 6)
        assert derived["randomSeed"] == cc.leiden_seed and derived["concurrency"] == 1
        cc.leiden_density = 0.0
        assert communities.make_detector(cc, "leiden").config(proj)["gamma"] == cc.leiden_gamma
    finally:
        fusion.drop(g.db, name)
    report = g.scan(algorithm="leiden")
    assert report.detector_config["gamma"] == cc.leiden_gamma
