"""The consolidation loop under load (issue 10).

1. Admission latency with and without the trigger write (the dirty mark admission adds in
   its own transaction): p50 / p95 of `admit` with precomputed embeddings, alternating the
   two variants so machine load hits both alike.
2. Soak: 2 `graphcons worker` processes for --minutes against one Neo4j while this script
   admits a steady stream of memories (with near-duplicates and clusters), with fast
   schedules (every minute) and a short lease TTL; every --kill-every seconds one worker is
   killed with SIGKILL and restarted, so leases are taken over. Then it counts job runs,
   lease takeovers, duplicate runs (two ok runs of one job overlapping in time), duplicate
   proposals and daily-cap overruns.

Runs on the Neo4j of $NEO4J_URI, which it WIPES first: use a scratch database
(scripts/neo4j with your own GRAPHCONS_NEO4J_HOME / port).

    python -m bench.jobs.loop [--n 300] [--minutes 10] [--kill-every 120]

Prints the figures and saves bench/jobs/results/loop.json.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from graphcons.api import Graphcons  # noqa: E402
from graphcons.core.config import Config, load_config  # noqa: E402
from graphcons.store import admission, dirty  # noqa: E402

RESULTS = ROOT / "bench" / "jobs" / "results" / "loop.json"
GRAPHCONS = [sys.executable, "-m", "graphcons"]


def wipe(g: Graphcons) -> None:  # bench only, on a scratch database
    with g.db.driver.session(database=g.config.neo4j.database) as s:
        s.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS").consume()


def unit(rng: np.random.Generator, dims: int) -> list[float]:
    v = rng.normal(size=dims)
    return (v / np.linalg.norm(v)).tolist()


def admission_latency(g: Graphcons, n: int, rng: np.random.Generator) -> dict:
    real_mark = dirty.mark
    times: dict[str, list[float]] = {"with_trigger": [], "without_trigger": [], "mark_statement": []}

    def timed_mark(*a, **k):  # the trigger's own cost: its statement inside admission's transaction
        t = time.perf_counter()
        real_mark(*a, **k)
        times["mark_statement"].append((time.perf_counter() - t) * 1000)

    dims = g.embedder.dimensions
    for i in range(2 * n):
        variant = "with_trigger" if i % 2 == 0 else "without_trigger"
        dirty.mark = timed_mark if variant == "with_trigger" else (lambda *a, **k: None)
        data = {"content": f"latency probe {i}: service {i % 17} answered in {i} ms", "subject": f"lat-{i % 20}",
                "namespace": "bench-latency", "source": "bench"}
        t0 = time.perf_counter()
        admission.admit(g.db, g.config, g.embedder, data, embedding=unit(rng, dims))
        times[variant].append((time.perf_counter() - t0) * 1000)
    dirty.mark = real_mark
    out = {}
    for k, v in times.items():
        v.sort()
        out[k] = {"n": len(v), "p50_ms": round(statistics.median(v), 2), "p95_ms": round(v[int(0.95 * len(v)) - 1], 2)}
    out["trigger_adds_p95_ms"] = round(out["with_trigger"]["p95_ms"] - out["without_trigger"]["p95_ms"], 2)
    out["trigger_adds_p50_ms"] = round(out["with_trigger"]["p50_ms"] - out["without_trigger"]["p50_ms"], 2)
    return out


SOAK_TOML = """
[consolidation]
enabled = true
dry_run = false
daily_cap = {cap}
[merge]
auto_apply = true
[jobs]
lease_ttl_s = 15
poll_s = 5
trigger_min_gap_s = 20
[jobs.merge]
schedule = "* * * * *"
[jobs.promote]
schedule = "* * * * *"
[jobs.weights]
schedule = "*/2 * * * *"
[jobs.decay]
schedule = "*/3 * * * *"
[jobs.deprecate]
schedule = "*/3 * * * *"
[jobs.consolidate]
schedule = "*/2 * * * *"
[jobs.precompute]
schedule = "*/5 * * * *"
"""

INCIDENT = ["Checkout returned 503 errors right after deploy {k}.",
            "Deploy {k} caused 503s on the checkout service.",
            "After deploy {k} the checkout API answered 503.",
            "503 responses on checkout followed deploy {k}.",
            "The checkout service failed with 503 after deploy {k}."]


def start_worker(env: dict, log: Path) -> subprocess.Popen:
    return subprocess.Popen(GRAPHCONS + ["worker"], env=env, stdout=open(log, "a"), stderr=subprocess.STDOUT,
                            cwd=ROOT)


def soak(g: Graphcons, minutes: float, kill_every: float, cap: int, workdir: Path) -> dict:
    cfg_file = workdir / "graphcons.toml"
    cfg_file.write_text(SOAK_TOML.format(cap=cap))
    env = {**os.environ, "GRAPHCONS_CONFIG": str(cfg_file), "PYTHONPATH": str(ROOT)}
    logs = [workdir / "worker-0.log", workdir / "worker-1.log"]
    workers = [start_worker(env, logs[0]), start_worker(env, logs[1])]
    kills, admitted, i = 0, 0, 0
    t_end = time.monotonic() + minutes * 60
    next_kill = time.monotonic() + kill_every
    while time.monotonic() < t_end:
        k = i // 5  # five paraphrases of one incident, then the next: clusters and near-duplicates
        g.add({"content": INCIDENT[i % 5].format(k=k), "subject": f"svc-{k % 6}", "namespace": "soak",
               "source": f"oncall-{i % 4}", "kind": "observation"})
        admitted += 1
        i += 1
        if time.monotonic() >= next_kill:
            victim = kills % 2
            workers[victim].send_signal(signal.SIGKILL)
            workers[victim].wait()
            workers[victim] = start_worker(env, logs[victim])
            kills += 1
            next_kill += kill_every
        time.sleep(1.0)
    for w in workers:  # a clean stop: SIGTERM, each finishes or releases its lease
        w.send_signal(signal.SIGTERM)
    for w in workers:
        try:
            w.wait(timeout=120)
        except subprocess.TimeoutExpired:
            w.kill()
    db = g.db
    runs = db.run_text("MATCH (r:JobRun) RETURN r.job AS job, r.status AS status, count(*) AS n ORDER BY job, status")
    overlaps = db.run_text(
        "MATCH (a:JobRun {status: 'ok'}), (b:JobRun {status: 'ok'}) WHERE a.job = b.job AND a.run_id < b.run_id "
        "AND a.started_at < b.finished_at AND b.started_at < a.finished_at RETURN count(*) AS n")[0]["n"]
    takeovers = db.run_text("MATCH (a:Audit {op: 'lease_takeover'}) RETURN count(a) AS n")[0]["n"]
    dup_props = db.run_text(
        "MATCH (p:Proposal) WITH p.kind AS kind, coalesce(p.cluster_key + '|' + p.membership_hash, "
        "apoc_none) AS k, count(*) AS n WHERE n > 1 RETURN count(*) AS n".replace("apoc_none",
                                                                                 "reduce(s = '', x IN p.memory_ids | s + x)")
    )[0]["n"]
    per_day = db.run_text("MATCH (a:Audit {op: 'synthesize'}) RETURN date(a.at) AS day, count(*) AS n")
    overruns = sum(max(0, r["n"] - cap) for r in per_day)
    missing_versions = db.run_text(
        "MATCH (m:Memory) WHERE NOT EXISTS { (m)-[:VERSION]->(:MemoryVersion {version: m.version}) } "
        "RETURN count(m) AS n")[0]["n"]
    half_applied = db.run_text(
        "MATCH (p:Proposal {kind: 'merge'}) OPTIONAL MATCH ()-[s:SUPERSEDES {proposal: p.id}]->() "
        "WITH p, count(s) AS edges WHERE (p.status = 'applied') <> (edges > 0) RETURN count(p) AS n")[0]["n"]
    return {"minutes": minutes, "workers": 2, "admitted": admitted, "kill9_restarts": kills,
            "job_runs": {f"{r['job']}:{r['status']}": r["n"] for r in runs},
            "job_runs_ok": sum(r["n"] for r in runs if r["status"] == "ok"),
            "lease_takeovers": takeovers, "duplicate_runs": overlaps, "duplicate_proposals": dup_props,
            "daily_cap": cap, "syntheses_per_day": {str(r["day"]): r["n"] for r in per_day},
            "cap_overruns": overruns, "memories_without_version": missing_versions,
            "half_applied_merges": half_applied,
            "proposals": db.run_text("MATCH (p:Proposal) RETURN p.kind AS kind, p.status AS status, count(*) AS n")}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=300, help="admissions per latency variant")
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--kill-every", type=float, default=120.0)
    ap.add_argument("--cap", type=int, default=5)
    ap.add_argument("--latency-only", action="store_true", help="re-measure admission only; keep the saved soak")
    args = ap.parse_args()
    cfg: Config = load_config()
    load = os.getloadavg()
    with Graphcons(cfg) as g:
        wipe(g)
        g.init()
        rng = np.random.default_rng(7)
        t0 = time.time()
        lat = admission_latency(g, args.n, rng)
        print(json.dumps(lat, indent=2))
        if args.latency_only:
            saved = json.loads(RESULTS.read_text())
            saved["admission"] = {**lat, "when": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                                  "load": [round(x, 2) for x in os.getloadavg()]}
            RESULTS.write_text(json.dumps(saved, indent=2, default=str) + "\n")
            return
        wipe(g)
        g.init()
        with tempfile.TemporaryDirectory() as tmp:
            soaked = soak(g, args.minutes, args.kill_every, args.cap, Path(tmp))
            soaked["worker_log_tail"] = [ln for f in sorted(Path(tmp).glob("*.log"))
                                         for ln in f.read_text().splitlines()[-5:]]
        print(json.dumps(soaked, indent=2, default=str))
    out = {"when": datetime.now(timezone.utc).isoformat(timespec="seconds"),
           "load_before": [round(x, 2) for x in load], "load_after": [round(x, 2) for x in os.getloadavg()],
           "cpus": os.cpu_count(), "note": "2 cores shared with up to 7 other sessions: the machine was loaded",
           "seconds": round(time.time() - t0), "admission": lat, "soak": soaked}
    RESULTS.write_text(json.dumps(out, indent=2, default=str) + "\n")
    print(f"saved {RESULTS}")


if __name__ == "__main__":
    main()
