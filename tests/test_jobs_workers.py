"""Workers as separate processes against one Neo4j (issue 10): N workers started together run
each job exactly once within the daily cap; a worker killed with SIGKILL in the middle of
consolidate or of merge --apply leaves nothing half-applied, and the next worker takes over."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest
from jobs_helpers import add_duplicate_pairs, add_linked_cluster, assert_store_whole, kill_points, n

from graphcons.jobs.table import JOBS
from graphcons.scenarios import seed_incidents
from graphcons.store import jobruns

REPO = Path(__file__).resolve().parent.parent
NOW = datetime(2026, 11, 30, 3, 30, tzinfo=timezone.utc)
ALL = set(JOBS)  # every job of the table (event_time since issue 47)


@pytest.mark.parametrize("workers", [2, 4])
def test_workers_started_together_run_each_job_once_within_the_cap(g, neo4j_settings, tmp_path, workers):
    seed_incidents(g)
    cfg = tmp_path / "graphcons.toml"
    cfg.write_text("[consolidation]\nenabled = true\ndry_run = false\ndaily_cap = 1\n")  # merges would change the clusters
    env = dict(os.environ, NEO4J_URI=neo4j_settings.uri, NEO4J_USER=neo4j_settings.user,
               NEO4J_PASSWORD=neo4j_settings.resolved_password(), GRAPHCONS_CONFIG=str(cfg),
               PYTHONPATH=str(REPO))
    procs = [subprocess.Popen([sys.executable, "-m", "graphcons", "worker", "--once", "--now", NOW.isoformat()],
                              env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for _ in range(workers)]
    outs = [p.communicate(timeout=600)[0] for p in procs]
    assert [p.returncode for p in procs] == [0] * workers, outs
    ok = [r for r in jobruns.runs(g.db, limit=1000) if r["status"] == "ok"]
    assert sorted(r["job"] for r in ok) == sorted(ALL)  # each job exactly once
    assert not [r for r in jobruns.runs(g.db, limit=1000) if r["status"] != "ok"]
    assert n(g, "MATCH (a:Audit {op: 'synthesize'}) RETURN count(a) AS n") == 1  # daily_cap = 1
    assert n(g, "MATCH (p:Proposal {kind: 'consolidate'}) RETURN count(p) AS n") == 1
    lines = [ln for o in outs for ln in o.splitlines() if "status=ok" in ln]
    assert len(lines) == len(ALL)  # one log line per run
    line = next(ln for ln in lines if "job=consolidate" in ln)
    accepted = int(line.split("accepted=")[1].split()[0])  # what the other jobs ran first may change the clusters
    assert ("left pending: daily cap reached" in line) == (accepted > 1), line  # the run says what it left
    assert_store_whole(g)


def test_kill_9_in_the_middle_of_consolidate_then_takeover(g):
    g.config.consolidation.enabled, g.config.consolidation.dry_run = True, False
    g.config.consolidation.min_salience, g.config.consolidation.daily_cap = 0.0, 1000
    g.config.jobs.lease_ttl_s = 1.0
    rng = np.random.default_rng(10)
    report = kill_points(g, "consolidate", 10, NOW, lambda i: add_linked_cluster(g, f"c{i + 1}"), rng)
    # every cluster ends with exactly one proposal, and each synthesis spent one slot of the cap
    clusters = n(g, "MATCH (t:SynthesisTask) RETURN count(t) AS n")
    assert n(g, "MATCH (p:Proposal {kind: 'consolidate'}) RETURN count(p) AS n") == clusters
    assert n(g, "MATCH (b:SynthesisBudget) RETURN b.reserved AS n") == n(
        g, "MATCH (r:BudgetReservation) RETURN count(r) AS n")
    assert report["kills_landed"] >= 10 and report["runs_abandoned_and_taken_over"] >= 1


def test_kill_9_in_the_middle_of_merge_apply_then_takeover(g):
    g.config.merge.auto_apply = True
    g.config.merge.propose_at = g.config.merge.auto_apply_at = 0.5  # the planted twins differ by a hyphen
    g.config.jobs.lease_ttl_s = 1.0
    rng = np.random.default_rng(11)
    report = kill_points(g, "merge", 10, NOW, lambda i: add_duplicate_pairs(g, f"m{i + 1}", seed=i + 1), rng)
    pairs = n(g, "MATCH (m:Memory) RETURN count(m) AS n") // 2
    assert n(g, "MATCH (p:Proposal {kind: 'merge', status: 'applied'}) RETURN count(p) AS n") == pairs
    assert n(g, "MATCH (m:Memory {status: 'deprecated'}) RETURN count(m) AS n") == pairs
    assert report["kills_landed"] >= 10 and report["runs_abandoned_and_taken_over"] >= 1
