"""Incremental jobs (issue 33): a merge run that admissions triggered touches only the dirty
(namespace, subject) scopes, a consolidate run only the dirty subjects and the subjects edges join to
them (never another namespace); each decides there exactly what a full pass decides, and leaves the
rest to the scheduled full pass, which stays the safety net (real Neo4j)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from jobs_helpers import CLUSTER_TEXTS, add_duplicate_pairs

from graphcons.consolidation.scan import scan
from graphcons.jobs import due
from graphcons.jobs.worker import run_due, run_job
from graphcons.maintenance.merge import job as merge_job
from graphcons.maintenance.merge.score import proposal_id
from graphcons.store import dirty, jobruns

T0 = datetime(2026, 11, 30, 1, 0, tzinfo=timezone.utc)  # merge runs every 6 hours: next at 06:00


def _proposed(g, run_id):
    return sorted(r["id"] for r in g.db.run_text(
        "MATCH (p:Proposal {kind: 'merge', run_id: $run}) RETURN p.id AS id", run=run_id))


def test_a_triggered_merge_run_touches_only_the_dirty_scopes_and_equals_a_full_pass_there(g):
    add_duplicate_pairs(g, "settled-a", seed=1)
    add_duplicate_pairs(g, "settled-b", seed=2)
    run_due(g.db, g.config, now=T0)  # every job ran once: the settled subjects' pairs are proposed
    later = T0 + timedelta(hours=1)
    add_duplicate_pairs(g, "new-d", seed=3)  # 12 admissions: over trigger_insertions
    add_duplicate_pairs(g, "new-e", seed=4, pairs=2)  # 4 admissions: dirty, under the trigger
    # Duplicates whose marks the merge job already saw (as if another run had cleared them): only a full
    # pass finds them.
    add_duplicate_pairs(g, "hidden", seed=5)
    dirty.clear(g.db, "merge", [m for m in dirty.pending(g.db, "merge") if m["subject"] == "hidden"], later, "t")

    full = merge_job.run(g.db, g.config, now=later, dry_run=True)  # what a full pass would decide now
    full_ids = sorted(proposal_id(p.a, p.b) for p in full.proposed)
    hidden_ids = sorted(proposal_id(p.a, p.b) for p in full.proposed if p.a.startswith("hidden"))
    assert hidden_ids and len(full_ids) > len(hidden_ids)

    d = due.check(g.db, g.config, "merge", later)
    assert d.due and d.reason.startswith("trigger")
    result = next(r for r in run_due(g.db, g.config, now=later) if r.job == "merge")
    assert result.status == "ok" and result.counts["scopes"] == 2  # new-d and new-e, nothing else
    # In the dirty scopes: exactly the full pass's proposals; elsewhere nothing.
    assert _proposed(g, result.run_id) == sorted(set(full_ids) - set(hidden_ids))

    # The schedule's full pass is the safety net: it proposes what the scoped pass could not see.
    six = datetime(2026, 11, 30, 6, 0, tzinfo=timezone.utc)
    assert due.check(g.db, g.config, "merge", six).reason.startswith("scheduled")
    sched = run_job(g.db, g.config, "merge", now=six)
    assert sched.counts["scopes"] == "all"
    assert _proposed(g, sched.run_id) == hidden_ids


def test_incremental_off_makes_every_triggered_run_a_full_pass(g):
    g.config.jobs.incremental = False
    run_due(g.db, g.config, now=T0)
    add_duplicate_pairs(g, "new-d", seed=3)
    result = next(r for r in run_due(g.db, g.config, now=T0 + timedelta(hours=1)) if r.job == "merge")
    assert result.counts["scopes"] == "all"
    assert jobruns.runs(g.db, "merge")[0]["trigger"].startswith("trigger")


def _cluster_in(g, namespace: str, tag: str, size: int = 4) -> list[str]:
    """A cluster the gate accepts (min_salience 0): linked incident memories of one subject in `namespace`."""
    ids = [g.add({"id": f"{tag}-m{i}", "content": CLUSTER_TEXTS[i % 4].format(k=tag), "subject": tag,
                  "namespace": namespace, "source": f"oncall-{i}", "kind": "incident"}).id for i in range(size)]
    for i, x in enumerate(ids):
        for y in ids[i + 1:]:
            g.link(x, y, "related")
    return ids


def _insight_proposals(g, run_id):
    return sorted((r["key"], r["ns"]) for r in g.db.run_text(
        "MATCH (p:Proposal {kind: 'consolidate', run_id: $run}) RETURN p.cluster_key AS key, p.namespace AS ns",
        run=run_id))


def test_a_triggered_consolidate_run_scans_only_the_dirty_namespaces_and_equals_a_full_pass_there(g):
    cc = g.config.consolidation
    cc.enabled, cc.dry_run, cc.min_salience = True, False, 0.0
    g.config.jobs.trigger_cluster_size = 4
    _cluster_in(g, "team-a", "a1")
    _cluster_in(g, "team-b", "b1")
    run_due(g.db, g.config, now=T0)  # every job ran once: a1 and b1 are proposed
    later = T0 + timedelta(hours=1)
    _cluster_in(g, "team-b", "b2")  # 4 admissions in one subject: the consolidate trigger
    # A new cluster whose marks consolidate already saw (as if another run had cleared them): only a full
    # pass finds it.
    _cluster_in(g, "team-a", "a2")
    dirty.clear(g.db, "consolidate", [m for m in dirty.pending(g.db, "consolidate") if m["namespace"] == "team-a"],
                later, "t")

    full = scan(g.db, g.config, now=later)  # what a full pass sees now
    in_b = sorted((d.key, d.accepted, d.membership_hash) for d in full.decisions if d.cluster.namespace == "team-b")
    scoped = scan(g.db, g.config, now=later, namespace="team-b")
    assert sorted((d.key, d.accepted, d.membership_hash) for d in scoped.decisions) == in_b  # same clusters there
    new_b = sorted(d.key for d in full.accepted if d.cluster.namespace == "team-b" and "b2-m0" in d.cluster.member_ids)
    new_a = sorted(d.key for d in full.accepted if d.cluster.namespace == "team-a" and "a2-m0" in d.cluster.member_ids)
    assert new_b and new_a

    d = due.check(g.db, g.config, "consolidate", later)
    assert d.due and d.reason.startswith("trigger")
    result = next(r for r in run_due(g.db, g.config, now=later) if r.job == "consolidate")
    assert result.status == "ok" and result.counts["scopes"] == 1, result
    assert _insight_proposals(g, result.run_id) == [(k, "team-b") for k in new_b]  # b2 only: a2 was not looked at

    # The schedule's full pass (03:30) is the safety net: it proposes what the scoped pass could not see.
    sched_at = datetime(2026, 11, 30, 3, 30, tzinfo=timezone.utc)
    sched = run_job(g.db, g.config, "consolidate", now=sched_at)
    assert sched.counts["scopes"] == "all"
    assert _insight_proposals(g, sched.run_id) == [(k, "team-a") for k in new_a]


def test_a_triggered_consolidate_run_scans_the_dirty_subjects_and_those_edges_join_to_them(g):
    """Below a namespace: the dirty subject, the subjects a link joins to it (step by step), nothing
    else; there the scan decides what a full pass decides, and its proposals are the full pass's."""
    cc = g.config.consolidation
    cc.enabled, cc.dry_run, cc.min_salience = True, False, 0.0
    g.config.jobs.trigger_cluster_size = 4
    _cluster_in(g, "team", "s1")
    run_due(g.db, g.config, now=T0)  # every job ran once: s1 is proposed
    later = T0 + timedelta(hours=1)
    _cluster_in(g, "team", "s2")  # 4 admissions in one subject: the consolidate trigger
    # s3 and s5 are not dirty (their marks cleared, as if a run had seen them), but a link joins s3 to
    # s2 and another s5 to s3: a cluster may cross them, so the scan must read them. s4 stays apart.
    for tag in ("s3", "s5", "s4"):
        _cluster_in(g, "team", tag)
    g.link("s2-m0", "s3-m0", "related")
    g.link("s3-m1", "s5-m1", "related")
    dirty.clear(g.db, "consolidate", [m for m in dirty.pending(g.db, "consolidate") if m["subject"] != "s2"],
                later, "t")
    assert sorted({m["subject"] for m in dirty.pending(g.db, "consolidate")}) == ["s2"]

    full = scan(g.db, g.config, now=later)
    joined = {"s2", "s3", "s5"}
    key = lambda ds: sorted((d.key, d.accepted, d.membership_hash) for d in ds)  # noqa: E731
    there = [d for d in full.decisions if {i.split("-")[0] for i in d.cluster.member_ids} & joined]
    scoped = scan(g.db, g.config, now=later, namespace="team", subjects=["s2", "s3", "s5"])
    assert key(scoped.decisions) == key(there) and there
    # Without the joined subjects the scan would not be a full pass's there (the link's weight is missing).
    assert scoped.relationships > scan(g.db, g.config, now=later, namespace="team", subjects=["s2"]).relationships

    result = next(r for r in run_due(g.db, g.config, now=later) if r.job == "consolidate")
    assert result.status == "ok" and result.counts["scopes"] == 1, result
    assert result.counts["subjects_scanned"] == 3, result.counts  # s2, s3, s5: s1 and s4 were not read
    new_there = sorted(d.key for d in there if d.accepted and "s1-m0" not in d.cluster.member_ids)
    assert _insight_proposals(g, result.run_id) == [(k, "team") for k in new_there]
    hidden = sorted(d.key for d in full.accepted if "s4-m0" in d.cluster.member_ids)
    assert hidden and not set(hidden) & {k for k, _ in _insight_proposals(g, result.run_id)}

    sched = run_job(g.db, g.config, "consolidate", now=datetime(2026, 11, 30, 3, 30, tzinfo=timezone.utc))
    assert sched.counts["scopes"] == "all" and sched.counts["subjects_scanned"] == "all"
    assert _insight_proposals(g, sched.run_id) == [(k, "team") for k in hidden]


def test_a_scan_of_subjects_needs_a_namespace_and_names_the_field(g):
    import pytest

    from graphcons.core.errors import ValidationError
    with pytest.raises(ValidationError, match="subjects"):
        scan(g.db, g.config, now=T0, subjects=["s1"])
    with pytest.raises(ValidationError, match="subjects"):
        scan(g.db, g.config, now=T0, namespace="team", subjects=[])


def test_the_closure_scans_the_whole_namespace_when_it_reaches_a_memory_without_a_subject(g):
    from graphcons.consolidation.closure import closed_subjects
    _cluster_in(g, "team", "s1")
    _cluster_in(g, "team", "s2")
    assert closed_subjects(g.db, "team", ["s1"]) == ["s1"]
    g.link("s1-m0", "s2-m0", "related")
    assert closed_subjects(g.db, "team", ["s1"]) == ["s1", "s2"]
    assert closed_subjects(g.db, "team", ["s1"], max_subjects=1) is None  # too many: the namespace whole
    # A memory stored before subjects were required (no subject) cannot be selected by subject.
    g.db.run_text("MATCH (a:Memory {id: 's2-m1'}) CREATE (b:Memory {id: 'legacy-1', namespace: 'team', "
                  "status: 'active', content: 'x'}) CREATE (a)-[:LINKED {kind: 'related'}]->(b)")
    assert closed_subjects(g.db, "team", ["s1"]) is None


def test_a_triggered_update_pass_reads_only_the_dirty_blocks_and_still_finds_the_update(g):
    """Issue 62: after a pass, a memory added to one subject makes the next (triggered) pass read that
    subject's block alone, and the update it states is found; a forced run stays a full pass."""
    g.config.jobs.trigger_insertions = 1  # one new memory in a subject is enough to trigger
    said = T0 - timedelta(days=60)
    g.add({"id": "old", "content": "I've tried three different Korean restaurants in my city so far.",
           "subject": "user", "namespace": "chat", "source": "s1", "created_at": said})
    g.add({"id": "walk", "content": "I walk the dog every morning before work.", "subject": "user",
           "namespace": "chat", "source": "s1b", "created_at": said})
    for n in range(3):  # other blocks the incremental pass must not read
        for i in range(4):
            g.add({"content": f"Team {n} deploy {i} of service {n} went out on Tuesday.", "subject": f"svc-{n}",
                   "namespace": "ops", "source": f"d{n}-{i}", "created_at": said})
    first = run_job(g.db, g.config, "updates", now=T0, force=True)  # by hand: a full pass
    assert first.status == "ok" and first.counts["scopes"] == "all"
    assert (first.counts["blocks"], first.counts["memories"]) == (4, 14) and first.counts["proposed"] == 0

    later = T0 + timedelta(hours=1)
    g.add({"id": "new", "content": "I've tried four different Korean restaurants in my city so far.",
           "subject": "user", "namespace": "chat", "source": "s2", "created_at": said + timedelta(days=40)})
    d = due.check(g.db, g.config, "updates", later)
    assert d.due and d.reason.startswith("trigger")
    result = run_job(g.db, g.config, "updates", now=later)
    assert result.status == "ok" and result.counts["scopes"] == 1  # chat|user, nothing else
    assert (result.counts["blocks"], result.counts["memories"]) == (1, 3)
    assert result.counts["proposed"] == 1
    (p,) = g.proposals(kind="update", status="pending")
    assert p["memory_ids"] == ["new", "old"]
    assert dirty.pending(g.db, "updates") == []  # the run cleared what it saw
