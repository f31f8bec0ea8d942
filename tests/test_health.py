"""Health figures, quality metrics with targets, last runs; every operation left an audit
record; the maintenance commands as a script would use them."""

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)
OLD = NOW - timedelta(days=60)

DUP_A = {"title": "Checkout 503 after deploy 4.2", "content": "Checkout returned 503 errors after deploy 4.2.",
         "subject": "checkout", "source": "pager", "importance": 0.9, "created_at": NOW - timedelta(days=2)}
DUP_B = {"title": "Checkout 503 after deploy 4.2", "content": "After deploy 4.2, checkout returned 503 errors.",
         "subject": "checkout", "source": "notes", "created_at": NOW - timedelta(days=2)}


def test_health_figures_metrics_and_audit_trail(g):
    a, b = g.add(DUP_A).id, g.add(DUP_B).id
    c = g.add({"content": "Old tip about fax machines", "subject": "office", "created_at": OLD}).id
    p = g.add({"content": "ADR-7: events are immutable", "kind": "decision", "status": "proposed",
               "subject": "events", "created_at": NOW}).id
    q = g.add({"content": "Maybe use gRPC", "status": "proposed", "subject": "rpc", "created_at": NOW}).id

    h0 = g.health(now=NOW)
    assert h0["figures"]["active"] == 3 and h0["figures"]["proposed"] == 2
    assert h0["last_runs"]["merge"] is None and set(h0["quality"]) == {
        "duplicate_rate", "promotion_rate", "stale_ratio", "merge_false_rate", "insight_quality", "weight_stability"}
    assert h0["quality"]["duplicate_rate"]["target"] == "< 0.05"

    g.merge(dry_run=False, now=NOW)
    assert g.health(now=NOW)["figures"]["duplicate_candidates"] == 1
    assert g.health(now=NOW, scan=True)["figures"]["duplicate_candidates"] == 1
    g.approve(g.proposals(kind="merge", status="pending")[0]["id"], now=NOW)
    g.decay(dry_run=False, now=NOW)
    g.promote(dry_run=False, now=NOW)
    g.deprecate(dry_run=False, now=NOW)
    g.restore(c, now=NOW)

    h = g.health(now=NOW)
    f = h["figures"]
    assert (f["total"], f["active"], f["proposed"], f["deprecated"]) == (5, 3, 1, 1)
    assert 0 < f["avg_weight"] < 1 and f["stale_candidates"] == 0
    assert f["merge_proposals"]["approved"] == 1
    assert h["quality"]["duplicate_rate"]["value"] == pytest.approx(1 / 5)
    assert h["quality"]["duplicate_rate"]["ok"] is False
    assert h["quality"]["promotion_rate"]["value"] == pytest.approx(1 / 2)
    assert h["quality"]["merge_false_rate"]["value"] == 0.0 and h["quality"]["merge_false_rate"]["ok"]
    assert all(h["last_runs"][job] == NOW for job in ("merge", "decay", "promote", "deprecate"))
    # every operation left an audit record, with its rule and run id
    ops = {"merge_proposed": [a, b], "merge": [a, b], "promote": [p], "archive": [c], "restore": [c]}
    for op, targets in ops.items():
        (rec,) = g.audit_log(op=op)
        assert rec["targets"] == targets and rec["run_id"] and rec["details"]["rule"], op
    assert g.audit_log(op="weights") and g.get(q).status == "proposed"


def test_pending_merges_and_open_conflicts_count_and_warn_when_they_grow(g):
    g.config.merge.threshold = 0.7
    g.add(DUP_A), g.add(DUP_B)  # a near-duplicate pair: one pending merge proposal
    g.add({"content": "Invoices are archived before month end.", "subject": "inv", "created_at": OLD})
    g.add({"content": "Invoices are archived after month end.", "subject": "inv", "created_at": OLD})  # a conflict
    g.merge(dry_run=False, now=NOW)

    h = g.health(now=NOW)
    f, dup = h["figures"], h["quality"]["duplicate_rate"]
    assert (f["live"], f["merge_proposals"]["pending"], f["merge_proposals"]["added_by_last_merge"]) == (4, 1, 1)
    assert (f["open_conflicts"], f["open_conflicts_added_by_last_merge"]) == (1, 1)
    # the pending duplicate counts: not 0.000 beside a queue of merges nobody reviewed
    assert (dup["value"], dup["merged"], dup["pending"], dup["ok"]) == (pytest.approx(1 / 4), 0, 1, False)
    assert h["warnings"] == []  # two items are no backlog yet (warn_min_count = 20)

    g.config.health.warn_min_count = 1
    warnings = g.health(now=NOW)["warnings"]
    assert warnings == [
        "1 pending merge proposals for 4 live memories (25.0%, warn above 2.0%); the last merge run added 1; "
        "review them: graphcons merge list",
        "1 open conflicts (CONFLICTS_WITH) for 4 live memories (25.0%, warn above 1.0%); the last merge run added 1; "
        "settle them: graphcons conflicts list"]
    g.config.health.open_conflicts_warn_share = 0.25  # at the share is not above it
    assert [w for w in g.health(now=NOW)["warnings"] if "conflicts" in w] == []

    # reviewed: the duplicate is now merged, counted once, and the queue warning is gone
    g.approve(g.proposals(kind="merge", status="pending")[0]["id"], now=NOW)
    h = g.health(now=NOW)
    dup = h["quality"]["duplicate_rate"]
    assert (dup["value"], dup["merged"], dup["pending"]) == (pytest.approx(1 / 4), 1, 0)
    assert h["figures"]["merge_proposals"]["pending"] == 0
    assert [w.split(" for ")[0] for w in h["warnings"]] == ["1 open conflicts (CONFLICTS_WITH)"]  # 1 of 3 live now


@pytest.fixture
def cli(g, neo4j_settings, tmp_path):
    env = dict(os.environ, NEO4J_URI=neo4j_settings.uri, NEO4J_USER=neo4j_settings.user,
               NEO4J_PASSWORD=neo4j_settings.resolved_password())
    env.pop("GRAPHCONS_CONFIG", None)

    def run(*args):
        return subprocess.run([sys.executable, "-m", "graphcons", *args], capture_output=True, text=True,
                              env=env, cwd=tmp_path, timeout=180)

    return run


def test_maintenance_commands_are_dry_runs_by_default(cli, g):
    a, b = g.add(DUP_A).id, g.add(DUP_B).id
    now = "--now=2026-11-29T12:00:00+00:00"
    dry = cli("merge", now, "--json")
    assert dry.returncode == 0, dry.stderr
    assert json.loads(dry.stdout)["dry_run"] is True and len(json.loads(dry.stdout)["proposed"]) == 1
    assert json.loads(cli("merge", "list", "--json").stdout) == []
    out = cli("merge", "--apply", now, "--json")
    (pid,) = [p["id"] for p in json.loads(cli("merge", "list", "--json").stdout)]
    assert cli("merge", "approve", pid, "--json").returncode == 0
    assert g.get(b).status == "deprecated"
    assert cli("restore", b, "--json").returncode == 0 and g.get(b).status == "active"

    decay = json.loads(cli("decay", now, "--json").stdout)
    assert decay["dry_run"] is True and decay["changed"] == 2
    assert json.loads(cli("weights", "recompute", "--apply", now, "--json").stdout)["changed"] == 2
    assert json.loads(cli("promote", now, "--json").stdout)["promoted"] == []
    assert json.loads(cli("deprecate", now, "--json").stdout)["archived"] == []
    health = json.loads(cli("health", now, "--json").stdout)
    assert health["figures"]["active"] == 2 and health["last_runs"]["weights"]
    assert cli("health", now).returncode == 0 and cli("merge", now).returncode == 0

    bad = cli("decay", "--now=yesterday")
    assert bad.returncode == 2 and "now" in bad.stderr
    assert cli("merge", "approve", "merge-nope").returncode == 3
    assert cli("deprecate", a).returncode == 2  # needs --replaced-by
    assert out.returncode == 0


def test_feedback_moves_the_weight_as_the_formula_says_and_feeds_insight_quality(g):
    from graphcons.maintenance.weights import compute

    mid = g.add({"content": "Warm the cache before switching traffic", "subject": "checkout",
                 "created_at": NOW - timedelta(days=1)}).id
    g.decay(dry_run=False, now=NOW)
    before = g.get(mid)
    out = g.feedback(mid, "useful", note="saved an outage", now=NOW)
    after = g.get(mid)
    assert after.weight_feedback == pytest.approx(2 / 3)  # (1 useful + 1) / (1 rated + 2)
    expected = compute({**before.model_dump(), "weight_feedback": 2 / 3}, NOW, g.config.weights)["effective_weight"]
    assert after.effective_weight == pytest.approx(expected) and after.effective_weight > before.effective_weight
    assert out["effective_weight_before"] == pytest.approx(before.effective_weight)
    g.feedback(mid, "wrong", by="ana", now=NOW)
    g.feedback(mid, "wrong", by="bo", now=NOW)  # two more raters (one rater counts once per memory)
    assert g.get(mid).weight_feedback == pytest.approx(2 / 5) and g.get(mid).effective_weight < after.effective_weight
    assert sorted(a["details"]["verdict"] for a in g.audit_log(op="feedback")) == ["useful", "wrong", "wrong"]

    ins = g.add({"content": "Checkout: 503 after deploy", "kind": "insight", "subject": "checkout"}).id
    assert g.health(now=NOW)["quality"]["insight_quality"]["value"] is None  # nothing rated yet
    g.feedback(ins, "useful", now=NOW)
    q = g.health(now=NOW)["quality"]
    assert q["insight_quality"] == {"value": 1.0, "target": "> 0.7", "ok": True}
    g.decay(dry_run=False, now=NOW + timedelta(days=3))
    g.decay(dry_run=False, now=NOW + timedelta(days=3, minutes=1))  # almost nothing changed: stable
    stability = g.health(now=NOW)["quality"]["weight_stability"]  # runs newest first (by decision time)
    assert stability["recent"][0] < stability["recent"][1] and stability["ok"] is True


def test_bad_feedback_names_the_field_and_writes_nothing(g):
    from graphcons.core.errors import NotFound, ValidationError

    mid = g.add({"content": "A memory to rate", "subject": "x"}).id
    with pytest.raises(ValidationError, match="verdict"):
        g.feedback(mid, "meh", now=NOW)
    with pytest.raises(NotFound):
        g.feedback("m-nope", "useful", now=NOW)
    assert g.get(mid).weight_feedback == 0.5 and g.audit_log(op="feedback") == []


def test_health_reports_the_last_run_and_status_of_every_job_however_it_ran(cli, g):
    """Issue 41: after consolidate runs by hand `health` said `consolidate: never`, and a merge by
    hand had no status. A run by hand (CLI / API) and a worker's run both count; the newer wins."""
    from graphcons.store import jobruns

    g.add(DUP_A), g.add(DUP_B)
    assert g.health(now=NOW)["last_status"]["consolidate"] is None
    g.config.consolidation.enabled, g.config.consolidation.dry_run = True, False
    g.consolidate(now=NOW - timedelta(hours=2))
    g.consolidate(now=NOW - timedelta(hours=1))
    g.merge(dry_run=False, now=NOW)
    g.promote(dry_run=False, now=NOW)
    jobruns.start(g.db, "decay", "decay-run-1", "worker-1", NOW, "schedule")
    jobruns.finish(g.db, "decay-run-1", "failed", error="Neo4j went away")
    h = g.health(now=NOW)
    assert h["last_runs"]["consolidate"] == NOW - timedelta(hours=1) and h["last_status"]["consolidate"] == "ok"
    assert h["last_runs"]["merge"] == NOW and h["last_status"]["merge"] == "ok"
    assert h["last_status"]["decay"] == "failed" and h["last_runs"]["decay"] == NOW
    assert h["last_status"]["reflect"] is None and h["last_runs"]["reflect"] is None

    out = cli("health", "--now=2026-11-29T12:00:00+00:00")
    assert out.returncode == 0, out.stderr
    cells = [[c.strip() for c in line.strip("│ ").split("│")] for line in out.stdout.splitlines() if "│" in line]
    rows = {c[0]: c[1:] for c in cells}
    assert rows["consolidate"] == ["2026-11-29 11:00:00+00:00", "ok"]
    assert rows["merge"] == ["2026-11-29 12:00:00+00:00", "ok"] and rows["decay"][-1] == "failed"
    assert rows["reflect"] == ["never", "-"]
