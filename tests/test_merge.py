"""Near-duplicate merge on a real Neo4j: what an operator would check after a pass."""

from datetime import datetime, timedelta, timezone

import pytest

from graphcons.core.config import load_config
from graphcons.core.errors import ConfigError, Conflict, NotFound, ValidationError
from graphcons.maintenance.merge.guard import contradictions, differences
from graphcons.maintenance.merge.score import proposal_id
from graphcons.store import coaccess

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)
T0 = NOW - timedelta(days=3)

A = {"title": "Checkout 503 after deploy 4.2",
     "content": "The checkout service returned 503 errors right after deploy 4.2 went out.",
     "subject": "checkout", "source": "pager", "importance": 0.9, "created_at": T0}
B = {"title": "Checkout 503 after deploy 4.2",
     "content": "Right after deploy 4.2 went out, the checkout service returned 503 errors.",
     "subject": "checkout", "source": "oncall-notes", "importance": 0.4, "created_at": T0 + timedelta(hours=1)}


def node(g, mem_id):
    return g.db.run_text("MATCH (m:Memory {id: $id}) RETURN m {.*, embedding: null} AS m", id=mem_id)[0]["m"]


def snapshot(g):
    """Everything a merge pass could change: memories, edges, proposals (not the run record)."""
    mems = g.db.run_text("MATCH (m:Memory) RETURN m {.*, embedding: null} AS m ORDER BY m.id")
    rels = g.db.run_text("MATCH (a)-[r]->(b) WHERE type(r) IN ['SUPERSEDES', 'CONFLICTS_WITH'] "
                         "RETURN a.id AS a, type(r) AS t, properties(r) AS p, b.id AS b ORDER BY a, t, b")
    props = g.db.run_text("MATCH (p:Proposal) RETURN p {.*} AS p ORDER BY p.id")
    audits = g.db.run_text("MATCH (a:Audit) WHERE a.op STARTS WITH 'merge' RETURN count(a) AS n")
    return mems, rels, props, audits


def test_near_duplicates_are_proposed_then_merged_and_the_loser_stays_addressable(g):
    a, b = g.add(A).id, g.add(B).id
    coaccess.record_access(g.db, g.config, "s1", [b], now=T0 + timedelta(days=1))
    coaccess.record_access(g.db, g.config, "s2", [b], now=T0 + timedelta(days=2))

    dry = g.merge(now=NOW)  # dry run by default: reports, writes nothing
    assert [(p.winner, p.loser) for p in dry.proposed] == [(a, b)]
    assert g.proposals(kind="merge") == []

    report = g.merge(dry_run=False, now=NOW)
    (p,) = report.proposed
    assert p.score >= g.config.merge.threshold and p.rule == "title"
    pending = g.proposals(kind="merge", status="pending")
    assert [x["id"] for x in pending] == [proposal_id(a, b)] and pending[0]["kind"] == "merge"
    assert g.get(b).status == "active"  # a proposal changes nothing yet

    out = g.approve(pending[0]["id"], now=NOW)
    assert (out.winner, out.loser) == (a, b)  # higher effective weight wins
    loser, winner = g.get(b), g.get(a)
    assert loser.status == "deprecated" and loser.content == B["content"]  # still addressable
    assert [v["content"] for v in g.history(b)] == [B["content"]]
    edge = g.db.run_text("MATCH (w:Memory {id: $a})-[s:SUPERSEDES]->(l:Memory {id: $b}) RETURN s {.*} AS s",
                         a=a, b=b)[0]["s"]
    assert edge["reason"] == "merge" and edge["reverted"] is False
    assert sorted(winner.sources) == ["oncall-notes", "pager"] and winner.evidence_count == 2
    assert winner.access_count == 2 and winner.last_accessed == T0 + timedelta(days=2)
    # retrieval lands on the winner even for the loser's own words
    hits = g.retrieve(B["content"], k=3, record=False)
    assert hits[0].memory.id == a and b in hits[0].superseded
    assert all(h.memory.id != b for h in hits)
    (rec,) = g.audit_log(op="merge")
    assert rec["targets"] == [a, b] and "jaro_winkler" in rec["details"]["rule"]
    assert rec["details"]["before"]["winner"]["evidence_count"] == 1
    assert rec["details"]["after"]["winner"]["evidence_count"] == 2 and rec["run_id"]


def test_different_subjects_or_namespaces_never_merge(g):
    g.add(A)
    g.add({**B, "subject": "payments"})
    g.add({**B, "namespace": "team-b"})
    report = g.merge(dry_run=False, now=NOW)
    assert report.over_threshold == 0 and report.proposed == [] and report.applied == []
    assert g.proposals(kind="merge") == []


def test_contradicting_pair_is_flagged_not_merged(g):
    g.config.merge.threshold = 0.8
    x = g.add({"content": "The payment cache is enabled in production.", "subject": "cache", "created_at": T0}).id
    y = g.add({"content": "The payment cache is not enabled in production.", "subject": "cache",
               "created_at": T0}).id
    u = g.add({"content": "Checkout timeouts are set to 30 seconds.", "subject": "timeouts", "created_at": T0}).id
    v = g.add({"content": "Checkout timeouts are set to 45 seconds.", "subject": "timeouts", "created_at": T0}).id
    report = g.merge(dry_run=False, now=NOW, auto_apply=True)
    flagged = {(p.a, p.b): p.contradictions for p in report.conflicts}
    assert flagged == {tuple(sorted((x, y))): ["negation"], tuple(sorted((u, v))): ["numbers"]}
    assert report.applied == [] and report.proposed == []
    assert all(g.get(i).status == "active" for i in (x, y, u, v))
    links = g.db.run_text("MATCH (a)-[c:CONFLICTS_WITH]->(b) RETURN a.id AS a, b.id AS b, c.status AS s, "
                          "c.reasons AS r ORDER BY a")
    assert {(r["a"], r["b"]) for r in links} == set(flagged) and {r["s"] for r in links} == {"open"}
    assert len(g.audit_log(op="merge_conflict")) == 2
    assert g.db.run_text("MATCH ()-[s:SUPERSEDES]->() RETURN count(s) AS n")[0]["n"] == 0


def test_contradiction_guard_rules():
    # two deploys are two things (issue 29): kept apart, not one deploy with two numbers
    assert contradictions("Deploy 4.2 broke checkout", "Deploy 4.3 broke checkout") == []
    assert differences("Deploy 4.2 broke checkout", "Deploy 4.3 broke checkout").apart == ["different things: 4.2 / 4.3"]
    assert contradictions("Checkout broke after the cache resize to 512", "Checkout broke after the cache resize to 1024") == ["numbers"]
    assert contradictions("Deploy 4.2 broke checkout at 10:00", "Deploy 4.2 broke checkout") == []  # a detail added
    assert contradictions("The API doesn't retry", "The API retries") == ["negation"]
    assert contradictions("Outage began on Monday", "Outage began on Tuesday") == ["dates"]
    assert contradictions("Deploy approved by Alice", "Deploy approved by Bob") == ["names"]
    assert contradictions("Bush vetoed the bill", "President Bush vetoed the bill") == []
    assert contradictions("Three retries then fail", "3 retries then fail") == []


def test_untitled_memories_use_the_derived_title_rule(g):
    g.add({"content": "Redis eviction storm at 02:00. Caused by a bad TTL.", "subject": "redis", "created_at": T0})
    g.add({"content": "Redis eviction storm at 02:00. A bad TTL caused it.", "subject": "redis", "created_at": T0})
    (p,) = g.merge(now=NOW).proposed
    assert p.rule == "derived-title" and p.title_sim == 1.0  # same first sentence


def test_a_second_run_changes_nothing(g):
    g.config.merge.auto_apply = True
    g.config.merge.auto_apply_at = 0.7  # A/B's verifier figure is ~0.8: under the shipped auto point
    g.add(A), g.add(B)
    g.add({"content": "The cache is enabled.", "subject": "c", "created_at": T0})
    g.add({"content": "The cache is not enabled.", "subject": "c", "created_at": T0})
    g.config.merge.threshold = 0.8
    first = g.merge(dry_run=False, now=NOW)
    assert len(first.applied) == 1 and len(first.conflicts) == 1
    before = snapshot(g)
    second = g.merge(dry_run=False, now=NOW + timedelta(hours=1))
    assert second.applied == second.proposed == second.conflicts == []
    assert snapshot(g) == before


def test_auto_apply_and_revert_round_trip_keeps_the_edge(g):
    g.config.merge.auto_apply_at = 0.7
    a, b = g.add(A).id, g.add(B).id
    report = g.merge(dry_run=False, now=NOW, auto_apply=True)
    assert [(p.winner, p.loser) for p in report.applied] == [(a, b)]
    pid = proposal_id(a, b)
    assert g.proposals(kind="merge", status="applied")[0]["reviewed_by"] == "auto"
    assert g.get(b).status == "deprecated"

    out = g.revert(pid, now=NOW + timedelta(hours=1))
    assert out.changed and g.get(b).status == "active"
    assert g.get(a).sources == ["pager"] and g.get(a).evidence_count == 1
    edge = g.db.run_text("MATCH (:Memory {id: $a})-[s:SUPERSEDES]->(:Memory {id: $b}) RETURN s {.*} AS s",
                         a=a, b=b)
    assert len(edge) == 1 and edge[0]["s"]["reverted"] is True  # kept, marked
    hits = g.retrieve(B["content"], k=2, record=False)
    assert {h.memory.id for h in hits} == {a, b}  # the reverted edge no longer redirects
    assert g.revert(pid, now=NOW + timedelta(hours=2)).changed is False
    assert g.merge(dry_run=False, now=NOW + timedelta(hours=3), auto_apply=True).applied == []  # not redone
    assert len(g.audit_log(op="merge_reverted")) == 1


def test_restore_of_a_merged_memory_reverts_its_merge(g):
    g.config.merge.auto_apply_at = 0.7
    a, b = g.add(A).id, g.add(B).id
    g.merge(dry_run=False, now=NOW, auto_apply=True)
    out = g.restore(b, now=NOW + timedelta(hours=1))
    assert out["via"] == "merge revert" and g.get(b).status == "active"
    assert g.proposals(kind="merge", status="reverted")[0]["id"] == proposal_id(a, b)


def test_reject_and_stale_proposals(g):
    a, b = g.add(A).id, g.add(B).id
    g.merge(dry_run=False, now=NOW)
    pid = proposal_id(a, b)
    assert g.reject(pid, "different incidents", now=NOW).changed
    with pytest.raises(Conflict):
        g.approve(pid, now=NOW)
    assert g.get(b).status == "active"
    assert g.merge(dry_run=False, now=NOW).proposed == []  # a rejected pair is not proposed again
    assert g.audit_log(op="reject")[0]["details"]["reason"] == "different incidents"


def test_bad_input_names_the_field(g, tmp_path):
    with pytest.raises(NotFound):
        g.approve("merge-doesnotexist", now=NOW)
    with pytest.raises(ValidationError) as exc:
        g.approve("", now=NOW)
    assert exc.value.field == "proposal_id"
    with pytest.raises(ValidationError) as exc:
        g.merge(now=datetime(2026, 11, 29))  # naive
    assert exc.value.field == "now"
    with pytest.raises(ValidationError) as exc:
        g.proposals(kind="merge", status="maybe")
    assert exc.value.field == "status"
    bad = tmp_path / "graphcons.toml"
    bad.write_text("[merge]\nthreshold = 1.5\n")
    with pytest.raises(ConfigError, match="merge.threshold"):
        load_config(bad, env={})


def test_the_shared_review_queue_lists_and_applies_merge_proposals(g):
    a, b = g.add(A).id, g.add(B).id
    g.merge(dry_run=False, now=NOW)
    queued = g.proposals(kind="merge", status="pending")
    assert [p["id"] for p in queued] == [proposal_id(a, b)]
    g.approve(queued[0]["id"], now=NOW)  # the generic queue hands merge proposals to graphcons.merge
    assert g.get(b).status == "deprecated"
    assert g.approve(queued[0]["id"], now=NOW).changed is False  # approving twice changes nothing
    assert len(g.audit_log(op="merge")) == 1
    g.revert(queued[0]["id"], now=NOW + timedelta(hours=1))
    assert g.get(b).status == "active" and g.proposals(kind="merge", status="reverted")[0]["id"] == queued[0]["id"]


# -- issue 11: the staged decision on a real store ----------------------------------------------
def test_a_paraphrase_is_never_a_conflict_and_every_stage_is_on_the_proposal(g):
    a = g.add({"content": "The user prefers TypeScript.", "subject": "prefs", "created_at": T0}).id
    b = g.add({"content": "TypeScript is the user's preferred language.", "subject": "prefs", "created_at": T0}).id
    # the words align ("language" only restates TypeScript's class): never a conflict, and nothing one text
    # adds; whether it is proposed is the verifier's figure against the propose point alone (issue 29)
    dry = g.merge(now=NOW)
    assert dry.conflicts == [] and dry.related == []
    assert all(p.p_duplicate >= g.config.merge.propose_at for p in dry.proposed)
    g.config.merge.propose_at = 0.3  # a lenient point: the payload of the proposal it makes
    report = g.merge(dry_run=False, now=NOW)
    (p,) = report.proposed
    assert {p.a, p.b} == {a, b} and p.outcome == "duplicate" and p.contradictions == []
    payload = g.proposals(kind="merge", status="pending")[0]["payload"]
    assert payload["verifier"] == "rules" and payload["propose_at"] == g.config.merge.propose_at
    assert payload["restated"] is True and "restatement" in payload["rule_text"]
    assert payload["score"] >= payload["threshold"] and set(payload["features"]) >= {"cosine", "jaccard"}
    assert "p_duplicate" in payload["rule_text"]
    # the longer text wins the tie; what only the loser says is named for the reviewer (nothing here)
    assert payload["winner"] == b and payload["loser_adds"] == []


def test_a_near_paraphrase_with_a_difference_is_linked_related_once(g):
    x = g.add({"content": "The nightly export writes to the reports bucket.", "subject": "export",
               "created_at": T0}).id
    y = g.add({"content": "The nightly export writes CSV files to the reports bucket in the EU region.",
               "subject": "export", "created_at": T0}).id
    g.config.merge.propose_at = 0.99  # nothing is sure enough to merge
    first = g.merge(dry_run=False, now=NOW)
    assert [r.outcome for r in first.related] == ["near_paraphrase_with_difference"]
    rel = g.db.run_text("MATCH (a)-[r:RELATED {source: 'merge'}]->(b) RETURN a.id AS a, b.id AS b")
    assert [(r["a"], r["b"]) for r in rel] == [(min(x, y), max(x, y))]
    assert g.merge(dry_run=False, now=NOW).related == []  # known: not reported again
    assert g.proposals(kind="merge") == [] and len(g.audit_log(op="merge_related")) == 1


def test_opposites_are_linked_as_conflicts_in_the_same_shape_dry_or_applied(g):
    g.config.merge.threshold = 0.7
    x = g.add({"content": "The staging database is in the Frankfurt region and is backed up before each deploy.",
               "subject": "db", "created_at": T0}).id
    y = g.add({"content": "The staging database is in the Frankfurt region and is backed up after each deploy.",
               "subject": "db", "created_at": T0}).id
    dry = g.merge(now=NOW)
    wet = g.merge(dry_run=False, now=NOW)
    assert dry.conflicts == wet.conflicts and len(wet.conflicts) == 1  # same shape, same content
    (c,) = wet.conflicts
    assert c.contradictions == ["antonym"] and c.outcome == "conflict"
    assert c.opposites in (["after/before"], ["before/after"])
    link = g.db.run_text("MATCH (a)-[c:CONFLICTS_WITH]->(b) RETURN a.id AS a, b.id AS b, c.reasons AS r")
    assert [(r["a"], r["b"], r["r"]) for r in link] == [(min(x, y), max(x, y), ["antonym"])]
    assert wet.proposed == [] and g.proposals(kind="merge") == []


def test_merge_is_limited_to_a_namespace_or_subject(g):
    g.add(A), g.add(B)
    g.add({**A, "subject": "other"}), g.add({**B, "subject": "other"})
    assert len(g.merge(now=NOW).proposed) == 2
    only = g.merge(now=NOW, subject="other")
    assert [p.subject for p in only.proposed] == ["other"] and only.subject == "other"
    assert g.merge(now=NOW, namespace="nowhere").proposed == []


def test_auto_apply_applies_only_over_its_point_and_proposes_the_rest(g):
    g.add(A), g.add(B)
    g.config.merge.auto_apply_at = 1.0  # nothing is that sure: everything waits for a person
    report = g.merge(dry_run=False, now=NOW, auto_apply=True)
    assert report.applied == [] and len(report.proposed) == 1
    assert g.proposals(kind="merge", status="pending")


def test_conflicts_are_listed_and_a_person_settles_one_keeping_both(g):
    g.config.merge.threshold = 0.7
    x = g.add({"content": "Invoices are archived before month end.", "subject": "inv", "created_at": T0}).id
    y = g.add({"content": "Invoices are archived after month end.", "subject": "inv", "created_at": T0}).id
    g.merge(dry_run=False, now=NOW)
    (c,) = g.conflicts()
    assert {c["a"], c["b"]} == {x, y} and c["status"] == "open" and c["reasons"] == ["antonym"]
    with pytest.raises(ValidationError) as exc:
        g.resolve_conflict(x, y, holds="neither", now=NOW)
    assert exc.value.field == "holds"
    out = g.resolve_conflict(y, x, holds=y, scope="since the 2026 audit", note="finance confirmed", now=NOW)
    assert out["holds"] == y and g.conflicts() == []
    (done,) = g.conflicts(status="resolved")
    assert done["holds"] == y and done["scope"] == "since the 2026 audit" and done["resolved_by"] == "user"
    assert g.get(x).status == g.get(y).status == "active"  # both memories kept
    with pytest.raises(Conflict):
        g.resolve_conflict(x, y, holds=x, now=NOW)
    with pytest.raises(NotFound):
        g.resolve_conflict(x, "m-nothing", holds=x, now=NOW)
    assert len(g.audit_log(op="conflict_resolved")) == 1


# -- issue 29: a conflict is one attribute of one thing, not two events that share words ---------------
def test_the_demo_store_has_no_conflict_between_distinct_events(g):
    """examples/memories.jsonl: five 503 incidents after five deploys (4.2 .. 4.6), a deadline restated on
    three days, preferences. A pass writes no CONFLICTS_WITH link; the incidents are at most RELATED."""
    import json
    from pathlib import Path

    for line in (Path(__file__).resolve().parent.parent / "examples" / "memories.jsonl").read_text().splitlines():
        g.add(json.loads(line))
    report = g.merge(dry_run=False, now=NOW)
    assert report.conflicts == []
    assert g.db.run_text("MATCH ()-[c:CONFLICTS_WITH]->() RETURN count(c) AS n")[0]["n"] == 0
    incidents = {"inc-101", "inc-102", "inc-103", "inc-104", "inc-105"}
    for p in report.proposed + report.applied:
        assert not {p.a, p.b} <= incidents, p  # two deploys' incidents are never one memory
    kept_apart = [r for r in report.related if {r.a, r.b} <= incidents]
    assert kept_apart and all(any(x.startswith("different things") for x in r.apart) for r in kept_apart)


def test_a_setting_with_two_values_is_still_a_conflict_on_the_store(g):
    a = g.add({"content": "The payments gateway request timeout is set to 30 seconds.", "subject": "gateway",
               "created_at": T0}).id
    b = g.add({"content": "The payments gateway request timeout is set to 60 seconds.", "subject": "gateway",
               "created_at": T0}).id
    report = g.merge(dry_run=False, now=NOW)
    assert [(c.a, c.b) for c in report.conflicts] == [tuple(sorted((a, b)))]
    assert report.conflicts[0].contradictions == ["numbers"]
