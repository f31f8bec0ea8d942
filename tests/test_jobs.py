"""Scheduled jobs in one process (issue 10): cron defaults and overrides, due times, leases,
job-run records, triggers from admission's dirty marks, coalescing, the cross-worker daily cap
(real Neo4j)."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone

import pytest
from jobs_helpers import add_linked_cluster, n

from graphcons.consolidation.budget import Budget
from graphcons.core.config import Config, load_config
from graphcons.core.errors import ConfigError
from graphcons.jobs import due
from graphcons.jobs.worker import run_due, run_job
from graphcons.store import dirty, jobruns, leases

T0 = datetime(2026, 11, 30, 1, 0, tzinfo=timezone.utc)  # a Monday, 01:00 UTC


def runs(g, job=None, status="ok"):
    return [r for r in jobruns.runs(g.db, job) if status is None or r["status"] == status]


def test_cron_defaults_follow_the_seeds_and_overrides_come_from_the_file(tmp_path):
    jobs = Config().jobs
    assert jobs.merge.schedule == "0 */6 * * *" and jobs.weights.schedule == "0 */12 * * *"
    assert jobs.decay.schedule == jobs.consolidate.schedule == "30 3 * * *"
    assert jobs.reflect.schedule == "45 4 * * 0" and jobs.reflect.enabled  # reflects only with [reflection] enabled
    assert Config().consolidation.auto_trigger is True
    f = tmp_path / "graphcons.toml"
    f.write_text('[jobs.merge]\nschedule = "*/5 * * * *"\nenabled = false\n[jobs]\nlease_ttl_s = 30\n')
    cfg = load_config(f, env={})
    assert cfg.jobs.merge.schedule == "*/5 * * * *" and not cfg.jobs.merge.enabled and cfg.jobs.lease_ttl_s == 30
    assert cfg.jobs.promote.schedule == "15 */6 * * *"  # the others keep their defaults


@pytest.mark.parametrize("expr", ["0 */6 * *", "61 * * * *", "every day"])
def test_a_bad_cron_expression_is_a_config_error_naming_the_job(tmp_path, expr):
    f = tmp_path / "graphcons.toml"
    f.write_text(f'[jobs.consolidate]\nschedule = "{expr}"\n')
    with pytest.raises(ConfigError, match="jobs.consolidate.schedule"):
        load_config(f, env={})


def test_limits_apply_only_where_they_mean_something(tmp_path):
    f = tmp_path / "graphcons.toml"
    f.write_text('[jobs.merge]\nschedule = "0 * * * *"\nmax_items = 3\n')
    with pytest.raises(ConfigError, match="jobs.merge: max_items"):
        load_config(f, env={})


def test_never_run_is_due_at_once_then_on_its_schedule(g):
    assert {d.job for d in due.due_jobs(g.db, g.config, T0)} == {
        "merge", "updates", "promote", "weights", "decay", "deprecate", "consolidate", "precompute", "reflect",
        "index", "event_time", "cards", "keys"}
    results = run_due(g.db, g.config, now=T0, worker="w1")
    assert {r.job: r.status for r in results} == dict.fromkeys(
        ["merge", "updates", "promote", "weights", "decay", "deprecate", "consolidate", "precompute", "reflect",
         "index", "event_time", "cards", "keys"], "ok")
    assert due.due_jobs(g.db, g.config, T0 + timedelta(minutes=1)) == []
    # merge is due at the next 6-hour mark, decay and consolidate at 03:30
    at_6 = {d.job for d in due.due_jobs(g.db, g.config, datetime(2026, 11, 30, 6, 0, tzinfo=timezone.utc))}

    assert "merge" in at_6 and "decay" in at_6 and "weights" not in at_6
    assert [r["trigger"] for r in runs(g, "merge")] == ["never ran"]
    assert n(g, "MATCH (a:Audit {op: 'job_run'}) RETURN count(a) AS n") == 13


def test_a_failed_job_is_recorded_and_waits_for_its_next_time(g, monkeypatch):
    from graphcons.jobs import table

    def boom(db, cfg, now, ctx):
        raise RuntimeError("disk on fire")

    monkeypatch.setitem(table.JOBS, "promote", table.Job("promote", boom, dirty=True))
    r = run_job(g.db, g.config, "promote", now=T0)
    assert r.status == "failed" and "disk on fire" in r.error
    assert runs(g, "promote", "failed")[0]["error"] == "RuntimeError: disk on fire"
    assert leases.holders(g.db)["promote"]["owner"] is None  # released
    assert not due.check(g.db, g.config, "promote", T0 + timedelta(minutes=5)).due  # no tight loop
    assert due.check(g.db, g.config, "promote", datetime(2026, 11, 30, 6, 15, tzinfo=timezone.utc)).due
    assert any("promote" in w and "failed" in w for w in g.health(now=T0)["warnings"])


def test_a_lease_is_taken_by_one_claim_and_taken_over_only_after_expiry(g):
    a = leases.claim(g.db, "merge", "w1", "run-a", ttl_s=2)
    assert a is not None and leases.claim(g.db, "merge", "w2", "run-b", ttl_s=2) is None
    assert leases.renew(g.db, a, 2)
    import time
    time.sleep(2.5)
    b = leases.claim(g.db, "merge", "w2", "run-b", ttl_s=60)
    assert b is not None and b.taken_from == "w1" and b.previous_run == "run-a"
    assert not leases.renew(g.db, a, 2) and not leases.release(g.db, a)  # the old holder lost it
    assert leases.release(g.db, b) and leases.claim(g.db, "merge", "w3", "run-c", 2) is not None


def test_concurrent_claims_give_the_lease_to_exactly_one(g):
    winners, barrier = [], threading.Barrier(8)

    def claim(i):
        barrier.wait()
        if leases.claim(g.db, "consolidate", f"w{i}", f"run-{i}", ttl_s=60):
            winners.append(i)

    threads = [threading.Thread(target=claim, args=(i,)) for i in range(8)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert len(winners) == 1


def test_a_held_lease_skips_the_job_and_a_takeover_marks_the_dead_run_abandoned(g):
    g.config.jobs.lease_ttl_s = 2
    dead = leases.claim(g.db, "weights", "dead-worker", "weights-dead", ttl_s=1)
    jobruns.start(g.db, "weights", "weights-dead", "dead-worker", T0, "never ran")
    import time
    time.sleep(1.5)
    r = run_job(g.db, g.config, "weights", now=T0)
    assert dead and r.status == "ok" and r.took_over == "dead-worker"
    assert runs(g, "weights", "abandoned")[0]["run_id"] == "weights-dead"
    assert g.audit_log(op="lease_takeover")[0]["details"]["taken_from"] == "dead-worker"


def test_ten_admissions_to_one_subject_make_merge_due_nine_do_not(g):
    run_due(g.db, g.config, now=T0)  # every job has run once
    later = T0 + timedelta(hours=1)  # before merge's next 6-hour mark
    for i in range(9):
        g.add({"content": f"The billing export failed on night {i}", "subject": "billing"})
    assert not due.check(g.db, g.config, "merge", later).due
    g.add({"content": "The billing export failed on night 9", "subject": "billing"})
    d = due.check(g.db, g.config, "merge", later)
    assert d.due and "trigger" in d.reason and [s["subject"] for s in d.subjects] == ["billing"]
    assert due.check(g.db, g.config, "promote", later).due
    assert not due.check(g.db, g.config, "weights", later).due  # not a dirty-mark job
    # coalesced: one run clears the mark, the next poll finds nothing to do
    results = run_due(g.db, g.config, now=later)
    assert sorted(r.job for r in results) == ["merge", "promote", "updates"]  # updates: issue 62
    assert not due.check(g.db, g.config, "merge", later + timedelta(minutes=30)).due
    assert dirty.pending(g.db, "merge", 1) == []


def test_a_hundred_admissions_make_one_run(g):
    run_due(g.db, g.config, now=T0)
    with g.db.transaction() as tx:
        for _ in range(100):
            dirty.mark(tx, "default", "payments", T0)
    later = T0 + timedelta(hours=1)
    assert [r.job for r in run_due(g.db, g.config, now=later)] == ["merge", "updates", "promote"]
    assert run_due(g.db, g.config, now=later + timedelta(hours=1)) == []
    assert len(runs(g, "merge")) == 2


def test_a_quiet_subject_is_covered_by_the_periodic_pass(g):
    run_due(g.db, g.config, now=T0)
    g.add({"content": "The quiet service restarted once.", "subject": "quiet"})
    assert not due.check(g.db, g.config, "merge", T0 + timedelta(hours=1)).due
    six = datetime(2026, 11, 30, 6, 0, tzinfo=timezone.utc)
    d = due.check(g.db, g.config, "merge", six)
    assert d.due and d.reason.startswith("scheduled")
    assert run_job(g.db, g.config, "merge", now=six).status == "ok"
    assert dirty.pending(g.db, "merge", 1) == []  # the periodic pass cleared the quiet subject's mark


def test_auto_trigger_wires_only_the_consolidate_trigger(g):
    g.config.consolidation.enabled = True
    run_due(g.db, g.config, now=T0)
    later = T0 + timedelta(hours=1)
    for i in range(5):
        g.add({"content": f"Queue consumer lagged {i} minutes behind", "subject": "queue"})
    assert due.check(g.db, g.config, "consolidate", later).due
    g.config.consolidation.auto_trigger = False
    assert not due.check(g.db, g.config, "consolidate", later).due
    assert not due.check(g.db, g.config, "merge", later).due  # 5 < 10: merge is not triggered either


def test_the_daily_cap_holds_for_concurrent_runs_without_leases(g):
    """Four consolidate runs at once (e.g. a worker and three manual runs): the day's syntheses never pass the cap."""
    g.config.consolidation.enabled, g.config.consolidation.dry_run = True, False
    g.config.consolidation.min_salience, g.config.consolidation.daily_cap = 0.0, 3
    for k in range(6):
        add_linked_cluster(g, f"svc{k}")
    barrier, reports = threading.Barrier(4), []

    def run():
        barrier.wait()
        reports.append(g.consolidate(now=T0))

    threads = [threading.Thread(target=run) for _ in range(4)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert n(g, "MATCH (a:Audit {op: 'synthesize'}) RETURN count(a) AS n") == 3
    assert n(g, "MATCH (b:SynthesisBudget) RETURN max(b.reserved) AS n") == 3
    assert all("left pending" in r.pending for r in reports)
    assert any("daily cap" in r.pending for r in reports)


def test_a_resumed_reservation_does_not_count_twice(g):
    jobruns.start(g.db, "consolidate", "run-1", "w1", T0, "never ran")
    budget = Budget.for_run(g.db, g.config, T0)
    assert budget.reserve(g.db, T0, "c1", "h1", "run-1") is None  # run-1 is killed before the outcome
    other = Budget.for_run(g.db, g.config, T0)
    assert other.reserve(g.db, T0, "c1", "h1", "run-2") == "being synthesized by run run-1"  # still running
    jobruns.finish(g.db, "run-1", "abandoned")  # what a lease takeover records
    again = Budget.for_run(g.db, g.config, T0)
    assert again.reserve(g.db, T0, "c1", "h1", "run-3") is None and again.resumed == 1
    assert n(g, "MATCH (b:SynthesisBudget) RETURN b.reserved AS n") == 1


def test_jobs_list_and_health_report_every_job(g):
    run_job(g.db, g.config, "merge", now=T0)
    rows = {r["job"]: r for r in g.jobs(now=T0 + timedelta(minutes=1))}
    assert set(rows) == {"merge", "updates", "promote", "weights", "decay", "deprecate", "consolidate", "precompute",
                         "reflect", "index", "event_time", "cards", "keys"}
    assert rows["merge"]["last_run"]["status"] == "ok" and not rows["merge"]["due"]
    assert rows["weights"]["due"] and rows["weights"]["reason"] == "never ran"
    assert rows["reflect"]["implemented"] and rows["merge"]["lease"]["owner"] is None
    h = g.health(now=T0 + timedelta(days=2))
    assert h["jobs"]["merge"]["overdue"] and any("merge is overdue" in w for w in h["warnings"])
    assert h["last_runs"]["merge"] == T0 and "consolidate" in h["last_runs"] and "reflect" in h["jobs"]
    assert not g.health(now=T0 + timedelta(hours=7))["jobs"]["merge"]["overdue"]
