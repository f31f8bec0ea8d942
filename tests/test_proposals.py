"""The proposal queue on a real Neo4j: one atomic apply, idempotent, reversible, never deleting."""

import pytest
from synthesis_helpers import NOW, add_incidents, count, insights
from test_merge import A, B
from test_updates import NEW, OLD

from graphcons.core.errors import Conflict, NotFound, ValidationError
from graphcons.maintenance.merge import review as merge_review
from graphcons.maintenance.updates import review as update_review
from graphcons.store.proposals import Proposal, Review


def graph_size(g):
    return (count(g, "MATCH (n) WHERE NOT n:Audit RETURN count(n) AS n"),
            count(g, "MATCH ()-[r]->() RETURN count(r) AS n"))


@pytest.fixture
def pending(g):
    cluster = add_incidents(g)
    out = g.synthesize(cluster, now=NOW)
    assert out.status == "proposed"
    return cluster, out.proposal_id


def test_approve_creates_exactly_one_insight_with_full_provenance(g, pending):
    cluster, pid = pending
    g.edit("inc-2", content="503s on checkout right after deploy 4.2, the cache was cold.")  # inc-2 now at v2
    with pytest.raises(Conflict):
        g.approve(pid, now=NOW)  # stale: see test_stale_member_refuses; re-synthesize first
    pid = g.resynthesize(pid, now=NOW).proposal_id
    g.config.consolidation.sim_floor = 0.5  # SIMILAR edges follow the same rule as for any memory
    res = g.approve(pid, by="ana", now=NOW)
    assert res.changed and insights(g) == 1
    rows = g.db.run_text(
        "MATCH (i:Memory {kind: 'insight'})-[s:SUMMARIZES]->(m:Memory) RETURN i.id AS i, m.id AS m, s.version AS v, "
        "m.version AS current ORDER BY m")
    assert [r["m"] for r in rows] == list(cluster.member_ids)
    assert all(r["i"] == res.insight_id and r["v"] == r["current"] for r in rows)
    assert {r["m"]: r["v"] for r in rows}["inc-2"] == 2
    p = g.proposal(pid)
    derived = g.db.run_text("MATCH (:Memory {id: $id})-[:DERIVED_FROM]->(m) RETURN m.id AS m ORDER BY m",
                            id=res.insight_id)
    assert [r["m"] for r in derived] == p["cited"] == list(cluster.member_ids)
    ins = g.get(res.insight_id)
    assert ins.kind == "insight" and ins.epistemic_status == "hypothesis" and ins.status == "active"
    assert "Gaps and open questions:" in ins.content and "Implications:" in ins.content
    node = g.db.run_text("MATCH (i:Memory {id: $id}) RETURN size(i.embedding) AS dims, i.cluster_key AS key, "
                         "COUNT { (i)-[:SIMILAR]-() } AS similar, COUNT { (i)-[:VERSION]->() } AS versions",
                         id=res.insight_id)[0]
    assert node["dims"] == 384 and node["key"] == cluster.key and node["similar"] >= 1 and node["versions"] == 1
    cosines = g.db.run_text("MATCH (:Memory {id: $id})-[s:SIMILAR]->(m) RETURN min(s.score) AS n", id=res.insight_id)
    assert cosines[0]["n"] >= 0.5
    assert p["status"] == "applied" and p["insight_id"] == res.insight_id and p["applied_by"] == "ana"
    # seed 004: members are marked consolidated (never retired: still live and retrievable) and the
    # insight keeps the highest importance among them
    assert all(g.get(m).status == "consolidated" for m in cluster.member_ids)
    assert ins.importance == max(g.get(m).importance for m in cluster.member_ids)
    audit = g.audit_log(op="approve")
    assert len(audit) == 1 and pid in audit[0]["targets"] and audit[0]["details"]["summarizes"] == 4
    # an insight is retrievable like any memory (in its own place; the default routes it to its
    # members where it only restates them, issue 61)
    hits = g.retrieve("checkout 503 errors after a deploy", k=10, insights="plain", record=False)
    assert res.insight_id in [h.memory.id for h in hits]


@pytest.mark.parametrize("step", ["insight", "links", "proposal", "audit"])
def test_a_failure_in_the_middle_of_apply_leaves_nothing(g, pending, step):
    _, pid = pending
    before = graph_size(g)

    def boom(at):
        if at == step:
            raise RuntimeError(f"injected failure after {at}")

    with pytest.raises(RuntimeError):
        g.approve(pid, now=NOW, checkpoint=boom)
    assert graph_size(g) == before and insights(g) == 0
    assert g.proposal(pid)["status"] == "pending" and not g.audit_log(op="approve")
    assert g.approve(pid, now=NOW).changed  # and it still applies cleanly afterwards
    assert insights(g) == 1


def test_approve_twice_is_a_no_op(g, pending):
    _, pid = pending
    first = g.approve(pid, now=NOW)
    size = graph_size(g)
    second = g.approve(pid, now=NOW)
    assert not second.changed and second.insight_id == first.insight_id
    assert graph_size(g) == size and len(g.audit_log(op="approve")) == 1


def test_reject_keeps_the_proposal_with_its_reason(g, pending):
    _, pid = pending
    with pytest.raises(ValidationError):
        g.reject(pid, "  ")
    d = g.reject(pid, "too vague", by="bo")
    assert d.changed and d.status == "rejected" and d.reason == "too vague"
    p = g.proposal(pid)
    assert p["status"] == "rejected" and p["reason"] == "too vague" and p["rejected_by"] == "bo"
    with pytest.raises(Conflict):
        g.approve(pid)
    assert insights(g) == 0
    assert [p["id"] for p in g.proposals(status="rejected")] == [pid]


def test_revert_deprecates_the_insight_and_keeps_everything_addressable(g, pending):
    cluster, pid = pending
    res = g.approve(pid, now=NOW)
    links = count(g, "MATCH (:Memory {id: $id})-[r:SUMMARIZES|DERIVED_FROM]->() RETURN count(r) AS n", id=res.insight_id)
    out = g.revert(res.insight_id, "wrong pattern", by="ana")  # by insight id (or proposal id)
    assert out.changed and out.links_kept == links
    ins = g.get(res.insight_id)
    assert ins.status == "deprecated" and ins.version == 2
    assert [v["status"] for v in g.history(res.insight_id)] == ["active", "deprecated"]
    assert count(g, "MATCH (:Memory {id: $id})-[r:SUMMARIZES|DERIVED_FROM]->() WHERE r.reverted_at IS NOT NULL "
                    "RETURN count(r) AS n", id=res.insight_id) == links
    assert all(g.get(m).status == "active" for m in cluster.member_ids)  # no longer consolidated
    assert g.proposal(pid)["status"] == "reverted"
    tree = g.explain(res.insight_id)  # the history still explains itself
    assert {s["id"] for s in tree["sources"]} == set(cluster.member_ids)
    again = g.revert(pid, "again")
    assert not again.changed
    with pytest.raises(Conflict):
        g.approve(pid)
    # the cluster is not re-proposed at the same membership after a human said no
    assert g.synthesize(cluster, now=NOW).status == "unchanged"


def test_stale_member_refuses_with_a_clear_message_and_offers_resynthesis(g, pending):
    cluster, pid = pending
    g.edit("inc-3", content="Deploy 4.3 went out and checkout served 503 after deploy for 9 minutes.")
    before = graph_size(g)
    with pytest.raises(Conflict) as err:
        g.approve(pid, now=NOW)
    assert "inc-3 changed (version 1 -> 2)" in str(err.value)
    assert f"graphcons proposals resynthesize {pid}" in str(err.value)
    assert graph_size(g) == before and insights(g) == 0
    out = g.resynthesize(pid, now=NOW)
    assert out.status == "proposed" and out.proposal_id != pid
    assert g.proposal(pid)["status"] == "stale" and g.proposal(pid)["replaced_by"] == out.proposal_id
    assert g.proposal(out.proposal_id)["member_versions"]["inc-3"] == 2
    assert g.approve(out.proposal_id, now=NOW).changed


def test_insights_over_insights(g):
    a = add_incidents(g)
    b = add_incidents(g, [
        ("db-1", "Payments database pool exhausted during the nightly batch.", "pagerduty", "2026-11-03"),
        ("db-2", "Nightly batch exhausted the payments database pool again.", "oncall-ana", "2026-11-10"),
        ("db-3", "Payments database pool exhausted by the nightly batch, raised the pool size.", "oncall-bo",
         "2026-11-17")], subject="checkout")
    ia = g.approve(g.synthesize(a, now=NOW).proposal_id, now=NOW).insight_id
    ib = g.approve(g.synthesize(b, now=NOW).proposal_id, now=NOW).insight_id
    from graphcons.consolidation.cluster import Cluster

    top = Cluster(member_ids=(ia, ib), namespace="default", subject="checkout")
    out = g.synthesize(top, now=NOW)
    assert out.status == "proposed"
    res = g.approve(out.proposal_id, now=NOW)
    tree = g.explain(res.insight_id)
    assert [c["id"] for c in tree["tree"]["children"]] == sorted([ia, ib])
    assert {s["id"] for s in tree["sources"]} == set(a.member_ids) | set(b.member_ids)
    assert all(s["kind"] == "incident" for s in tree["sources"])


def test_a_scan_finds_insights_over_the_insights_the_product_created(g):
    groups = [add_incidents(g), add_incidents(g, [
        ("db-1", "Payments database pool exhausted during the nightly batch.", "pagerduty", "2026-11-03"),
        ("db-2", "Nightly batch exhausted the payments database pool again.", "oncall-ana", "2026-11-10"),
        ("db-3", "Payments database pool exhausted by the nightly batch, raised the pool size.", "oncall-bo",
         "2026-11-17")]), add_incidents(g, [
        ("tls-1", "The edge proxy TLS certificate expired at midnight.", "pagerduty", "2026-11-04"),
        ("tls-2", "Edge proxy TLS certificate expired again; renewed by hand.", "oncall-bo", "2026-11-11"),
        ("tls-3", "TLS certificate on the edge proxy expired, the renewal job had failed.", "oncall-ana",
         "2026-11-18")])]
    made = [g.approve(g.synthesize(c, now=NOW).proposal_id, now=NOW).insight_id for c in groups]
    for s in range(3):  # an agent reads the three incident insights together in three sessions
        g.access(f"weekly-review-{s}", made)
    report = g.scan(now=NOW)
    found = [d for d in report.decisions if set(made) <= set(d.cluster.member_ids)]
    assert len(found) == 1 and set(found[0].cluster.member_ids) == set(made), [d.cluster.member_ids for d in found]
    decision = found[0]
    assert decision.accepted, decision.reasons
    # the episodes' own clusters are covered by the insights already: not proposed twice
    episodes = {m for c in groups for m in c.member_ids}
    assert not any(set(d.cluster.member_ids) & episodes for d in report.accepted)
    assert [d.rejected_by for d in report.decisions if set(d.cluster.member_ids) == set(groups[1].member_ids)] \
        == [["novelty"]]
    out = g.synthesize(decision.cluster, figures=decision.figures, now=NOW)
    assert out.status == "proposed"
    top = g.approve(out.proposal_id, now=NOW).insight_id
    tree = g.explain(top)
    assert [c["id"] for c in tree["tree"]["children"]] == sorted(made)
    assert {s["id"] for s in tree["sources"]} == {m for c in groups for m in c.member_ids}


def test_the_queue_lists_every_kind_but_applies_consolidations_only(g, pending):
    _, pid = pending
    g.db.run_text("CREATE (:Proposal {id: 'p-merge-x', kind: 'other-kind', status: 'pending', created_at: $now})",
                  now=NOW)  # a proposal of a kind this module does not own
    kinds = {p["id"]: p["kind"] for p in g.proposals()}
    assert kinds == {pid: "consolidate", "p-merge-x": "other-kind"}
    assert [p["id"] for p in g.proposals(kind="consolidate")] == [pid]
    with pytest.raises(Conflict):
        g.approve("p-merge-x")
    with pytest.raises(NotFound):
        g.approve("p-nope")


def test_incident_scenario_ends_with_a_pending_503_proposal_that_explains_to_the_incidents(g):
    from graphcons.scenarios import incident_consolidation

    out = incident_consolidation(g)
    pending = {o.title: o for o in out["synthesis"] if o.status == "proposed"}
    title = next(t for t in pending if "503" in t and "deploy" in t)
    pid = pending[title].proposal_id
    assert g.proposal(pid)["status"] == "pending" and insights(g) == 0
    again = incident_consolidation(g)  # idempotent: the same proposal, not a second one
    assert {o.proposal_id for o in again["synthesis"]} == {o.proposal_id for o in out["synthesis"]}
    res = g.approve(pid)
    sources = g.explain(res.insight_id)["sources"]
    assert [s["id"] for s in sources] == [f"inc-checkout-{i}" for i in range(1, 6)]
    assert all(s["kind"] == "incident" for s in sources)


def test_one_queue_approve_and_revert_dispatch_merge_proposals_to_the_merge_job(g):
    base = {"title": "Checkout 503 after deploy 4.2", "subject": "checkout", "created_at": "2026-11-20T10:00:00+00:00"}
    a = g.add({**base, "content": "The checkout service returned 503 errors right after deploy 4.2 went out.",
               "source": "pager", "importance": 0.9}).id
    b = g.add({**base, "content": "Right after deploy 4.2 went out, the checkout service returned 503 errors.",
               "source": "oncall-notes", "importance": 0.4}).id
    g.merge(dry_run=False, now=NOW)
    (merge_p,) = g.proposals(kind="merge")
    out = g.approve(merge_p["id"], now=NOW)  # the same verb as for consolidations
    assert (out.winner, out.loser) == (a, b) and g.get(b).status == "deprecated"
    g.revert(merge_p["id"], now=NOW)
    assert g.get(b).status == "active"


# kind -> (its review module, the two memories, the pass that proposes them, the Decision's fields for them)
PAIR_KINDS = {"merge": (merge_review, (A, B), "merge", ("winner", "loser")),
              "update": (update_review, (NEW, OLD), "updates", ("newer", "older"))}


@pytest.mark.parametrize("settle", ["approve", "reject"])
@pytest.mark.parametrize("kind", PAIR_KINDS)
def test_a_pair_proposal_settled_before_the_lock_is_not_applied_twice(g, kind, settle):
    """The queue read the proposal pending; another reviewer settled it before the lock was taken."""
    review, memories, job, fields = PAIR_KINDS[kind]
    ids = [g.add(m).id for m in memories]
    getattr(g, job)(dry_run=False, now=NOW)
    (read,) = g.proposals(kind=kind, status="pending")
    g.approve(read["id"], now=NOW) if settle == "approve" else g.reject(read["id"], "not the same", now=NOW)
    before = graph_size(g), count(g, "MATCH (a:Audit) RETURN count(a) AS n")
    stale_read = Proposal.decode(read, {kind: review.PAYLOAD})  # the proposal as read before it was settled
    if settle == "approve":
        again = review.approve(stale_read, Review(db=g.db, by="bo", now=NOW))
        assert (again.status, again.changed, [getattr(again, f) for f in fields]) == ("applied", False, ids)
    else:
        with pytest.raises(Conflict, match=f"{kind} proposal '{read['id']}' is rejected, not pending"):
            review.approve(stale_read, Review(db=g.db, by="bo", now=NOW))
    assert (graph_size(g), count(g, "MATCH (a:Audit) RETURN count(a) AS n")) == before  # nothing written


def test_a_member_retired_since_the_proposal_makes_it_stale(g, pending):
    _, pid = pending
    g.db.run_text("MATCH (m:Memory {id: 'inc-4'}) SET m.status = 'deprecated'")  # e.g. merged away meanwhile
    with pytest.raises(Conflict) as err:
        g.approve(pid, now=NOW)
    assert "inc-4 is now deprecated" in str(err.value) and insights(g) == 0
    out = g.resynthesize(pid, now=NOW)  # re-synthesis keeps the live members only
    assert g.proposal(out.proposal_id)["member_ids"] == ["inc-1", "inc-2", "inc-3"]
    assert g.approve(out.proposal_id, now=NOW).changed
