"""Bounded work: the daily cap and the provider budget leave clusters pending; re-synthesis only on change;
`consolidate` respects enabled and dry_run (real Neo4j, real scan)."""

from datetime import timedelta

import pytest
from llm_server import FakeLLM
from synthesis_helpers import NOW, add_incidents, proposals_count

from graphcons.consolidation.budget import Budget, day_bounds
from graphcons.consolidation.synthesis import make_synthesizer
from graphcons.core.config import LLMConfig
from graphcons.scenarios import NAMESPACE, seed_incidents

PAYDB = [("db-1", "Payments database pool exhausted during the nightly batch.", "pagerduty", "2026-11-03"),
         ("db-2", "Nightly batch exhausted the payments database pool again.", "oncall-ana", "2026-11-10"),
         ("db-3", "Payments database pool exhausted by the nightly batch.", "oncall-bo", "2026-11-17")]


def two_clusters(g):
    return add_incidents(g), add_incidents(g, PAYDB, subject="payments-db")


def task(g, key):
    rows = g.db.run("synthesis/task_get", keys=[key])
    return rows[0]["task"] if rows else None


def test_the_daily_cap_leaves_clusters_pending_until_the_next_day(g):
    a, b = two_clusters(g)
    g.config.consolidation.daily_cap = 1
    budget = Budget.for_run(g.db, g.config, NOW)
    from graphcons.consolidation.consolidate import synthesize_cluster

    first = synthesize_cluster(g.db, g.config, a, budget=budget, now=NOW)
    second = synthesize_cluster(g.db, g.config, b, budget=budget, now=NOW)
    assert first.status == "proposed" and second.status == "pending"
    assert "daily cap reached (1 syntheses per day)" in second.reason
    assert task(g, b.key)["status"] == "pending" and proposals_count(g) == 1
    assert g.audit_log(op="synthesis_deferred")[0]["targets"] == [b.key]
    # a later run on the same day is still capped (the cap counts the day's audited syntheses)
    assert g.synthesize(b, now=NOW + timedelta(hours=3)).status == "pending"
    # the next day it goes through
    assert g.synthesize(b, now=NOW + timedelta(days=1)).status == "proposed"
    assert proposals_count(g) == 2


def test_a_zero_cap_synthesizes_nothing(g):
    a, _ = two_clusters(g)
    g.config.consolidation.daily_cap = 0
    assert g.synthesize(a, now=NOW).status == "pending" and proposals_count(g) == 0


def test_the_provider_budget_leaves_clusters_pending(g):
    a, b = two_clusters(g)
    with FakeLLM() as llm:
        g.config.llm = LLMConfig(provider="openai", base_url=llm.base_url, model="m", max_calls_per_run=3)
        synth = make_synthesizer(g.config.llm)
        budget = Budget.for_run(g.db, g.config, NOW)
        from graphcons.consolidation.consolidate import synthesize_cluster

        first = synthesize_cluster(g.db, g.config, a, budget=budget, synthesizer=synth, now=NOW)
        second = synthesize_cluster(g.db, g.config, b, budget=budget, synthesizer=synth, now=NOW)
        assert first.status == "proposed" and first.calls == 2
        assert second.status == "pending" and "provider budget spent (2 of 3 LLM calls" in second.reason
        assert len(llm.requests) == 2  # no call was made for the deferred cluster
    assert task(g, b.key)["status"] == "pending"


def test_resynthesis_only_when_the_membership_hash_changes(g):
    a, _ = two_clusters(g)
    first = g.synthesize(a, now=NOW)
    assert g.synthesize(a, now=NOW).status == "unchanged"
    assert len(g.audit_log(op="synthesize")) == 1  # the unchanged cluster spent nothing
    g.edit("inc-1", content="Checkout returned 503 after deploy 4.1; rolled back after 14 minutes.")
    again = g.synthesize(a, now=NOW)
    assert again.status == "proposed" and again.proposal_id != first.proposal_id
    assert again.membership_hash != first.membership_hash


def test_day_bounds_are_utc_days():
    start, end = day_bounds(NOW)
    assert start.isoformat() == "2026-11-29T00:00:00+00:00" and end - start == timedelta(days=1)


@pytest.fixture
def scenario(g):
    seed_incidents(g)
    return g


def test_consolidate_is_off_by_default(scenario):
    g = scenario
    report = g.consolidate(now=NOW, namespace=NAMESPACE)
    assert not report.enabled and "disabled" in report.message and report.outcomes == []
    assert proposals_count(g) == 0


def test_consolidate_dry_run_reports_without_synthesizing(scenario):
    g = scenario
    g.config.consolidation.enabled = True
    report = g.consolidate(now=NOW, namespace=NAMESPACE)
    assert report.dry_run and report.outcomes
    assert {o.status for o in report.outcomes} == {"would_synthesize"}
    assert proposals_count(g) == 0 and not g.audit_log(op="synthesize")


def test_consolidate_runs_scan_gate_synthesis_proposals_within_the_cap(scenario):
    g = scenario
    g.config.consolidation.enabled = True
    g.config.consolidation.dry_run = False
    g.config.consolidation.daily_cap = 1
    seen = []
    report = g.consolidate(now=NOW, namespace=NAMESPACE, progress=lambda done, total, o: seen.append((done, total)))
    accepted = report.scan["accepted"]
    assert accepted >= 2 and seen[-1] == (accepted, accepted)
    assert report.count("proposed") == 1 and report.count("pending") == accepted - 1
    pending_key = next(o.cluster_key for o in report.outcomes if o.status == "pending")
    # the next day, the run picks up what was left pending first
    tomorrow = g.consolidate(now=NOW + timedelta(days=1), namespace=NAMESPACE)
    assert tomorrow.outcomes[0].cluster_key == pending_key and tomorrow.outcomes[0].status == "proposed"
    assert {o.status for o in tomorrow.outcomes[1:]} <= {"unchanged", "pending"}
    audit = g.audit_log(op="consolidate")
    assert len(audit) == 2 and audit[-1]["details"]["counts"] == {"pending": accepted - 1, "proposed": 1}


def test_one_namespace_spending_its_share_does_not_starve_another(g):
    """Issue 30: the day's ceiling is shared; each namespace has its own share of it."""
    from graphcons.consolidation.consolidate import synthesize_cluster

    a1 = add_incidents(g, namespace="tenant-a")
    a2 = add_incidents(g, [(f"a-{mid}", text, src, day) for mid, text, src, day in PAYDB], subject="payments-db",
                       namespace="tenant-a")
    b1 = add_incidents(g, [(f"b-{mid}", text, src, day) for mid, text, src, day in PAYDB], subject="payments-db",
                       namespace="tenant-b")
    g.config.consolidation.daily_cap, g.config.consolidation.namespace_daily_cap = 3, 1
    budget = Budget.for_run(g.db, g.config, NOW)
    first = synthesize_cluster(g.db, g.config, a1, budget=budget, now=NOW)
    second = synthesize_cluster(g.db, g.config, a2, budget=budget, now=NOW)
    other = synthesize_cluster(g.db, g.config, b1, budget=budget, now=NOW)
    assert (first.status, second.status, other.status) == ("proposed", "pending", "proposed")
    assert "namespace cap reached" in second.reason and "tenant-a" in second.reason
    # what the run reports shows the ceiling and each namespace's use
    fig = budget.figures()
    assert fig["daily_cap"] == 3 and fig["namespace_daily_cap"] == 1
    assert fig["used_today_by_namespace"] == {"tenant-a": 1, "tenant-b": 1}
    # a later run the same day: tenant-a still waits, and the ceiling still counts both
    later = Budget.for_run(g.db, g.config, NOW + timedelta(hours=1))
    assert synthesize_cluster(g.db, g.config, a2, budget=later, now=NOW + timedelta(hours=1)).status == "pending"
    assert later.used_today == 2
    assert synthesize_cluster(g.db, g.config, a2, now=NOW + timedelta(days=1)).status == "proposed"
