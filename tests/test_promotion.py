"""Promotion proposed -> active: each seed 003 rule fires on its case and not otherwise."""

from datetime import datetime, timedelta, timezone

import pytest

from graphcons.core.errors import ValidationError

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)
FRESH = NOW - timedelta(hours=1)


def proposed(g, content, **kw):
    data = {"content": content, "subject": "ops", "status": "proposed", "created_at": FRESH, "kind": "fact"}
    data.update(kw)
    return g.add(data).id


def evidence(g, content, *sources, **kw):
    """The same claim admitted by several sources (adds evidence to one memory)."""
    mem_id = None
    for src in sources:
        mem_id = g.add({"content": content, "subject": "ops", "status": "proposed", "created_at": FRESH,
                        "kind": "fact", "source": src, **kw}).id
    return mem_id


def promoted(report):
    return {p["id"]: p["rule"].split(":")[0] for p in report["promoted"]}


def test_each_rule_fires_on_its_case_and_not_otherwise(g):
    three = evidence(g, "Disk alerts fire at 90 percent", "pager", "grafana", "oncall")
    two_low = evidence(g, "Logs rotate nightly", "pager", "grafana", importance=0.2)
    two_high = evidence(g, "Backups run at 01:00 UTC", "pager", "grafana", importance=0.9)
    one_source_thrice = evidence(g, "The VPN is flaky", "rumour", "rumour", "rumour", importance=0.9)
    adr = proposed(g, "ADR-12: we use Postgres for the ledger", kind="decision")
    fresh_fact = proposed(g, "Cache TTL is 5 minutes")
    old = proposed(g, "Staging resets every Monday", created_at=NOW - timedelta(hours=25))
    just_under = proposed(g, "Canary lasts 20 minutes", created_at=NOW - timedelta(hours=23))
    old_conflicted = proposed(g, "Retry budget is 3", created_at=NOW - timedelta(hours=48))
    other = proposed(g, "Retry budget is 5", created_at=NOW - timedelta(hours=48), subject="other")
    g.db.run("merge/conflict", a=old_conflicted, b=other, reasons=["numbers"], score=0.95, contests=True, now=NOW, run_id="t")

    report = g.promote(dry_run=False, now=NOW)
    got = promoted(report)
    assert got == {three: "evidence", two_high: "weighted", adr: "architectural", old: "time"}
    for mem_id in (two_low, one_source_thrice, fresh_fact, just_under, old_conflicted, other):  # a conflict blocks both sides
        assert g.get(mem_id).status == "proposed"
    assert g.get(three).status == "active"
    recs = {r["targets"][0]: r for r in g.audit_log(op="promote")}
    assert set(recs) == set(got)
    assert recs[three]["details"]["rule"].startswith("evidence: 3 distinct sources")
    assert recs[adr]["details"]["before"] == {"status": "proposed"}
    assert recs[adr]["details"]["after"] == {"status": "active"}


def test_dry_run_then_second_run_change_nothing(g):
    a = proposed(g, "ADR-3: one queue per tenant", kind="decision")
    assert promoted(g.promote(now=NOW)) == {a: "architectural"}
    assert g.get(a).status == "proposed" and g.audit_log(op="promote") == []
    g.promote(dry_run=False, now=NOW)
    state = g.db.run_text("MATCH (m:Memory) RETURN m {.*, embedding: null} AS m ORDER BY m.id")
    second = g.promote(dry_run=False, now=NOW + timedelta(days=2))
    assert second["promoted"] == []
    assert g.db.run_text("MATCH (m:Memory) RETURN m {.*, embedding: null} AS m ORDER BY m.id") == state
    assert len(g.audit_log(op="promote")) == 1


def test_rules_are_configurable(g):
    g.config.promotion.direct_kinds = []
    g.config.promotion.time_based = False
    adr = proposed(g, "ADR-9: no more cron", kind="decision", created_at=NOW - timedelta(days=3))
    assert g.promote(now=NOW)["promoted"] == [] and g.get(adr).status == "proposed"
    with pytest.raises(ValidationError):
        g.promote(now="yesterday")
