"""The value gate (issue 3) on a real Neo4j: each rule accepts and rejects what it should,
with the reason and the figures recorded; a scan writes only its audit record."""

from __future__ import annotations

from clusters_helpers import DISTINCT, add_all
from graphcons.consolidation.cluster import Cluster


def _clique(g, ids, kind="related"):
    for i, x in enumerate(ids):
        for y in ids[i + 1:]:
            g.link(x, y, kind)


def _one(decisions, ids):
    found = [d for d in decisions if set(d.cluster.member_ids) == set(ids)]
    assert len(found) == 1, decisions
    return found[0]


def _insight(g, text, summarizes, status=None, cluster_key=None):
    iid = g.add({"content": text, "kind": "insight", "subject": "ops"}).id
    # SUMMARIZES edges are written by synthesis (issue 4); built directly for the case.
    g.db.run_text("MATCH (i:Memory {id: $i}), (m:Memory) WHERE m.id IN $ms CREATE (i)-[:SUMMARIZES {version: 1}]->(m)",
                  i=iid, ms=summarizes)
    if status or cluster_key:
        g.db.run_text("MATCH (i:Memory {id: $i}) SET i.status = coalesce($s, i.status), i.cluster_key = $k",
                      i=iid, s=status, k=cluster_key)
    return iid


def test_size_rule_rejects_too_small_and_too_large_clusters(g):
    ids = add_all(g, DISTINCT[:11], subject="ops")
    pair, four, five = ids[:2], ids[2:6], ids[6:11]
    for group in (pair, four, five):
        _clique(g, group)
    g.config.consolidation.max_size = 4

    report = g.scan()

    small, ok, big = _one(report.decisions, pair), _one(report.decisions, four), _one(report.decisions, five)
    assert not small.accepted and small.rejected_by == ["size"] and "min_size 3" in small.reasons[0]
    assert not big.accepted and big.rejected_by == ["size"] and "max_size 4" in big.reasons[0]
    assert ok.accepted and ok.figures["size"] == 4
    assert [d.key for d in report.accepted] == [ok.key]


def test_cohesion_rule_rejects_a_loosely_connected_cluster(g):
    ids = add_all(g, DISTINCT[:11], subject="ops")
    dense, chain = ids[:5], ids[5:11]
    _clique(g, dense)
    for a, b in zip(chain, chain[1:]):  # a path: 5 edges of 15 pairs
        g.link(a, b, "related")

    decisions = g.gate([Cluster(tuple(dense), "default"), Cluster(tuple(chain), "default")])

    d_dense, d_chain = _one(decisions, dense), _one(decisions, chain)
    assert d_dense.accepted and d_dense.figures["cohesion"] == 1.0
    assert not d_chain.accepted and d_chain.rejected_by == ["cohesion"]
    assert d_chain.figures["cohesion"] == 0.3333 and d_chain.figures["edges"] == 5
    assert "cohesion: 0.33 < min_cohesion 0.35" in d_chain.reasons[0]
    g.config.consolidation.min_cohesion = 0.3
    assert _one(g.gate([Cluster(tuple(chain), "default")]), chain).accepted


def test_cohesion_of_a_large_group_counts_neighbour_slots_not_pairs(g):
    """A k-NN graph gives each member ~k neighbours, so plain density falls as ~k / (n - 1)
    however tight the group; cohesion measures the in-cluster degree against min(k, n - 1)."""
    ids = add_all(g, DISTINCT[:16], subject="ops")
    for i, x in enumerate(ids):  # each member linked to the next two: in-cluster degree 4
        for y in (ids[(i + 1) % 16], ids[(i + 2) % 16]):
            g.link(x, y, "related")
    assert g.config.admission.similar_k == 5

    [d] = g.gate([Cluster(tuple(ids), "default")])

    assert d.accepted, d.reasons
    assert d.figures["edges"] == 32 and d.figures["density"] == 0.2667  # 32 of 120 pairs: under 0.35
    assert d.figures["cohesion_slots"] == 5 and d.figures["cohesion"] == 0.8  # 32 / (16 * 5 / 2)
    assert "cohesion: 0.80 >= min_cohesion 0.35" in d.reasons[1]
    g.config.consolidation.min_cohesion = 0.85
    assert _one(g.gate([Cluster(tuple(ids), "default")]), ids).rejected_by == ["cohesion"]


def test_link_kind_weights_change_cohesion(g):
    ids = add_all(g, DISTINCT[:3], subject="ops")
    _clique(g, ids, kind="mentions")
    g.config.consolidation.link_kind_weights = {"mentions": 0.3}
    d = _one(g.gate([Cluster(tuple(ids), "default")]), ids)
    assert d.figures["cohesion"] == 0.3 and d.rejected_by == ["cohesion"]


def test_salient_trigger_from_coaccess_and_from_activation(g):
    ids = add_all(g, DISTINCT[:9], subject="ops")
    used, activated, once = ids[:3], ids[3:6], ids[6:9]
    for s in ("s1", "s2"):
        g.access(s, used)  # each pair used together in 2 sessions: co-access mass 2.0
    g.access("s3", once)  # one session only: mass 1.0
    for group in (activated, once):
        _clique(g, group)
    # activation is written by spreading activation (issue 4); set directly for the case.
    g.db.run_text("MATCH (m:Memory) WHERE m.id IN $ids SET m.activation = 0.8", ids=activated)

    decisions = g.gate([Cluster(tuple(x), "default") for x in (used, activated, once)])

    d_used, d_act, d_once = (_one(decisions, x) for x in (used, activated, once))
    assert d_used.accepted and d_used.trigger == "salient" and d_used.figures["coaccess_mass"] == 2.0
    assert d_act.accepted and d_act.trigger == "salient" and abs(d_act.figures["activation_mass"] - 2.4) < 1e-9
    assert d_once.figures["salience"] == 1.0 and d_once.trigger == "dense_but_cold"  # cold: used once each


def test_dense_but_cold_accepts_cold_members_and_rejects_individually_used_ones(g):
    ids = add_all(g, DISTINCT[:8], subject="ops")
    cold, warm = ids[:4], ids[4:8]
    _clique(g, cold)
    _clique(g, warm)
    for n in range(3):  # each warm member used 3 times, alone: hot, but never together
        for m in warm:
            g.access(f"solo-{m}-{n}", [m])

    decisions = g.gate([Cluster(tuple(cold), "default"), Cluster(tuple(warm), "default")])

    d_cold, d_warm = _one(decisions, cold), _one(decisions, warm)
    assert d_cold.accepted and d_cold.trigger == "dense_but_cold" and d_cold.figures["cold_members"] == 4
    assert not d_warm.accepted and d_warm.rejected_by == ["trigger"] and d_warm.trigger is None
    assert "4 of 4 members are not cold" in d_warm.reasons[0]


def test_novelty_rejects_a_cluster_an_insight_already_covers(g):
    ids = add_all(g, DISTINCT[:12], subject="ops")
    covered, half, retired_cover = ids[:4], ids[4:8], ids[8:12]
    for group in (covered, half, retired_cover):
        _clique(g, group)
    existing = _insight(g, DISTINCT[12], covered[:3])  # 3 of 4 = 75% > 50%
    _insight(g, DISTINCT[13], half[:2])  # 2 of 4 = 50%, not more than 50%
    _insight(g, DISTINCT[14], retired_cover, status="deprecated")  # a retired insight covers nothing

    decisions = g.gate([Cluster(tuple(x), "default") for x in (covered, half, retired_cover)])

    d_cov, d_half, d_ret = (_one(decisions, x) for x in (covered, half, retired_cover))
    assert not d_cov.accepted and d_cov.rejected_by == ["novelty"]
    assert d_cov.figures["novelty_overlap"] == 0.75 and d_cov.figures["covering_insight"] == existing
    assert existing in d_cov.reasons[0] and "3 of 4" in d_cov.reasons[0]
    assert d_half.accepted and d_half.figures["novelty_overlap"] == 0.5
    assert d_ret.accepted and d_ret.figures["novelty_overlap"] == 0.0


def test_a_cluster_mixing_two_subjects_never_reaches_accepted_as_one(g):
    a = add_all(g, DISTINCT[:4], subject="checkout")
    b = add_all(g, DISTINCT[4:8], subject="billing")
    c = add_all(g, DISTINCT[8:10], subject="search")
    _clique(g, a + b + c)  # one tight community of three subjects

    report = g.scan()

    assert [c_.member_ids for c_ in report.clusters] == [tuple(sorted(a + b + c))]
    mixed = _one(report.decisions, a + b + c)
    assert not mixed.accepted and mixed.rejected_by == ["scope"]
    assert "billing, checkout, search" in mixed.reasons[0]
    assert sorted(set(d.cluster.member_ids) == set(a) or set(d.cluster.member_ids) == set(b)
                  for d in report.accepted) == [True, True]
    assert {d.cluster.subject for d in report.accepted} == {"checkout", "billing"}
    assert all(d.split_from == mixed.key for d in report.decisions if d is not mixed)
    small = _one(report.decisions, c)
    assert not small.accepted and small.rejected_by == ["size"]
    for d in report.accepted:  # every accepted cluster has one subject and one namespace
        subjects = g.db.run_text("MATCH (m:Memory) WHERE m.id IN $ids RETURN collect(DISTINCT m.subject) AS s",
                                 ids=list(d.cluster.member_ids))[0]["s"]
        assert len(subjects) == 1


def test_every_decision_shows_the_titles_of_its_first_members(g):
    a = add_all(g, DISTINCT[:4], subject="checkout")
    b = add_all(g, DISTINCT[4:6], subject="billing")
    _clique(g, a + b)  # a mixed cluster, its accepted part and its too-small part

    report = g.scan()

    assert len(report.decisions) == 3
    title = {r["id"]: r["title"] for r in g.db.run_text("MATCH (m:Memory) RETURN m.id AS id, m.title AS title")}
    for d in report.decisions:
        assert d.titles == [title[m] for m in d.cluster.member_ids[:3]]
        assert d.to_dict()["titles"] == d.titles and all(d.titles)


def test_incompatible_scopes_are_split_too(g):
    a = add_all(g, DISTINCT[:3], subject="travel", scope="user:alice")
    b = add_all(g, DISTINCT[3:6], subject="travel", scope="user:bob")
    _clique(g, a + b)

    report = g.scan()

    assert sorted(sorted(d.cluster.member_ids) for d in report.accepted) == sorted([sorted(a), sorted(b)])
    assert "scopes user:alice, user:bob" in _one(report.decisions, a + b).reasons[0]


def test_scan_reports_consolidation_due_and_writes_only_its_audit_record(g):
    ids = add_all(g, DISTINCT[:9], subject="ops")
    for group in (ids[:3], ids[3:6], ids[6:9]):
        _clique(g, group)
    before = g.db.run_text("MATCH (n) WITH count(n) AS n MATCH ()-[r]->() RETURN n, count(r) AS r")[0]

    report = g.scan()

    assert len(report.accepted) == 3 and report.consolidation_due == 3
    after = g.db.run_text("MATCH (n) WITH count(n) AS n MATCH ()-[r]->() RETURN n, count(r) AS r")[0]
    assert after == {"n": before["n"] + 2, "r": before["r"]}  # one :ConsolidationRun, one :Audit
    run = g.db.run_text("MATCH (r:ConsolidationRun {id: $id}) RETURN r {.*} AS r", id=report.run_id)[0]["r"]
    assert run["accepted"] == 3 and run["consolidation_due"] == 3 and run["algorithm"] == "label_propagation"
    assert run["nodes"] == 9 and run["dry_run"] is False and run["duration_ms"] >= 0  # a dry run records nothing
    assert '"min_cohesion": 0.35' in run["settings"]
    assert [a["op"] for a in g.audit_log(op="cluster_scan")] == ["cluster_scan"]
    assert g.db.run_text("CALL gds.graph.list() YIELD graphName RETURN count(*) AS n")[0]["n"] == 0

    # An insight recorded for one accepted cluster (by synthesis) makes it no longer due.
    key = report.accepted[0].key
    _insight(g, DISTINCT[10], [], cluster_key=key)
    again = g.scan()
    assert again.consolidation_due == 2 and key in [d.key for d in again.accepted]


def test_red_flags_all_singletons_and_one_giant_cluster(g):
    ids = add_all(g, DISTINCT[:8], subject="ops")
    report = g.scan()
    assert report.decisions == [] and any("singleton" in w for w in report.warnings)

    g.config.consolidation.max_size = 5
    for m in ids[1:]:
        g.link(ids[0], m, "related")  # a star swallows everything
    report = g.scan()
    assert any("giant cluster" in w and "8 of 8" in w for w in report.warnings)
    assert report.accepted == []


def test_gate_names_a_member_that_does_not_exist(g):
    import pytest

    from graphcons.core.errors import NotFound

    ids = add_all(g, DISTINCT[:2], subject="ops")
    size = g.db.run("synthesis/graph_size")[0]
    audits = len(g.audit_log(limit=1000))
    with pytest.raises(NotFound, match="m-nope"):
        g.gate([Cluster((*ids, "m-nope"), "default")])
    # the refused gate wrote nothing, and the same members without the unknown id are gated
    assert g.db.run("synthesis/graph_size")[0] == size and len(g.audit_log(limit=1000)) == audits
    (decision,) = g.gate([Cluster(tuple(ids), "default")])
    assert not decision.accepted and decision.rejected_by[0] == "size"
