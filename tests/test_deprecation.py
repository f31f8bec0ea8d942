"""Deprecation needs a replacement; archive and restore round-trip; nothing is deleted."""

from datetime import datetime, timedelta, timezone

import pytest

from graphcons.core.errors import Conflict, NotFound, ValidationError

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)
OLD = NOW - timedelta(days=60)


def count_nodes(g):
    return g.db.run_text("MATCH (n) RETURN count(n) AS n")[0]["n"]


def stale_store(g):
    """An old replaced memory, an old unreplaced one, a recent one and an old used one; decayed at NOW."""
    old_v1 = g.add({"content": "Deploys go through Jenkins job deploy-v1", "subject": "deploy", "created_at": OLD}).id
    v2 = g.add({"content": "Deploys go through the GitHub Actions workflow", "subject": "deploy",
                "created_at": NOW - timedelta(days=2)}).id
    g.db.run("deprecation/supersede", id=old_v1, replacement=v2, now=OLD, run_id="t", by="test")
    lonely = g.add({"content": "The office plant needs water on Thursdays", "subject": "office", "created_at": OLD}).id
    recent = g.add({"content": "Feature flags live in LaunchDarkly", "subject": "flags",
                    "created_at": NOW - timedelta(days=5)}).id
    used = g.add({"content": "Payments runbook lives in the wiki", "subject": "payments", "created_at": OLD}).id
    g.access("s-used", [used])
    g.decay(dry_run=False, now=NOW)
    return old_v1, v2, lonely, recent, used


def test_deprecation_needs_an_active_replacement_otherwise_archive(g):
    old_v1, v2, lonely, recent, used = stale_store(g)
    nodes = count_nodes(g)
    dry = g.deprecate(now=NOW)
    assert [r["id"] for r in dry["deprecated"]] == [old_v1] and [r["id"] for r in dry["archived"]] == [lonely]
    assert g.get(old_v1).status == "active"  # dry run

    report = g.deprecate(dry_run=False, now=NOW)
    assert [(r["id"], r["replacement"]) for r in report["deprecated"]] == [(old_v1, v2)]
    assert [r["id"] for r in report["archived"]] == [lonely]
    assert g.get(old_v1).status == "deprecated" and g.get(lonely).status == "archived"
    assert g.get(recent).status == "active" and g.get(used).status == "active" and g.get(v2).status == "active"
    assert count_nodes(g) == nodes + 3  # audit records added (deprecate, archive, the run); nothing deleted
    (dep,) = g.audit_log(op="deprecate")
    assert dep["targets"] == [old_v1, v2] and dep["details"]["rule"].startswith("replaced")
    (arc,) = g.audit_log(op="archive")
    assert arc["details"]["before"] == {"status": "active"} and arc["details"]["after"] == {"status": "archived"}
    # retrieval lands on the replacement; the archived memory is out of retrieval but addressable
    hits = g.retrieve("Jenkins job deploy-v1", k=3, record=False)
    assert old_v1 not in {h.memory.id for h in hits} and hits[0].memory.id == v2
    assert g.get(lonely).content.startswith("The office plant")


def test_without_archive_an_unreplaced_memory_is_left_alone(g):
    g.config.deprecation.archive = False
    old_v1, _, lonely, _, _ = stale_store(g)
    report = g.deprecate(dry_run=False, now=NOW)
    assert [r["id"] for r in report["deprecated"]] == [old_v1] and report["archived"] == []
    assert g.get(lonely).status == "active"


def test_manual_deprecation_requires_an_active_replacement(g):
    a = g.add({"content": "Use Python 3.10", "subject": "py"}).id
    b = g.add({"content": "Use Python 3.12", "subject": "py"}).id
    with pytest.raises(ValidationError) as exc:
        g.deprecate(a, dry_run=False, now=NOW)
    assert exc.value.field == "replaced_by"
    with pytest.raises(NotFound):
        g.deprecate(a, replaced_by="m-nope", dry_run=False, now=NOW)
    g.deprecate(b, replaced_by=a, dry_run=False, now=NOW)  # b deprecated: a is the replacement
    with pytest.raises(Conflict):
        g.deprecate(a, replaced_by=b, dry_run=False, now=NOW)  # b is not active any more
    assert g.get(b).status == "deprecated"
    edge = g.db.run_text("MATCH (:Memory {id: $a})-[s:SUPERSEDES]->(:Memory {id: $b}) RETURN s.reason AS r",
                         a=a, b=b)
    assert edge == [{"r": "replacement"}]


def test_archive_and_restore_round_trip(g):
    old_v1, v2, lonely, _, _ = stale_store(g)
    g.deprecate(dry_run=False, now=NOW)
    later = NOW + timedelta(hours=1)
    out = g.restore(lonely, now=later)
    assert out == {"id": lonely, "status": "active", "changed": True, "before": "archived"}
    out = g.restore(old_v1, now=later)
    assert out["status"] == "active" and g.get(old_v1).status == "active"
    edge = g.db.run_text("MATCH (:Memory {id: $a})-[s:SUPERSEDES]->(:Memory {id: $b}) RETURN s {.*} AS s",
                         a=v2, b=old_v1)
    assert len(edge) == 1 and edge[0]["s"]["reverted"] is True  # kept, marked
    hits = g.retrieve("Deploys go through Jenkins job deploy-v1", k=1, record=False)
    assert hits[0].memory.id == old_v1  # no longer redirected
    assert g.restore(lonely, now=later)["changed"] is False  # restoring twice changes nothing
    # the next pass does not retire them again straight away
    again = g.deprecate(dry_run=False, now=later + timedelta(days=1))
    assert again["deprecated"] == [] and again["archived"] == []
    assert {r["targets"][0] for r in g.audit_log(op="restore")} == {lonely, old_v1}


def test_running_deprecation_twice_changes_nothing(g):
    stale_store(g)
    g.deprecate(dry_run=False, now=NOW)
    state = g.db.run_text("MATCH (m:Memory) RETURN m {.*, embedding: null} AS m ORDER BY m.id")
    second = g.deprecate(dry_run=False, now=NOW + timedelta(hours=1))
    assert second["deprecated"] == [] and second["archived"] == []
    assert g.db.run_text("MATCH (m:Memory) RETURN m {.*, embedding: null} AS m ORDER BY m.id") == state
    assert len(g.audit_log(op="deprecate")) == 1 and len(g.audit_log(op="archive")) == 1
