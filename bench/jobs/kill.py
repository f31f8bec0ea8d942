"""kill -9 at many random points of `consolidate` and of `merge --apply` (issue 10).

The test suite lands 10 kills per job (tests/test_jobs_workers.py); this runs --points per
job (default 100) with the same loop (tests/jobs_helpers.kill_points): a forked worker runs
the job under its lease, is SIGKILLed at a random moment of the run, another worker takes
the lease over after expiry, and the store is checked whole (no duplicate or half-applied
proposal, no memory without its version). WIPES the database of $NEO4J_URI first.

    python -m bench.jobs.kill [--points 100]

Saves bench/jobs/results/kill.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
from jobs_helpers import add_duplicate_pairs, add_linked_cluster, kill_points  # noqa: E402

from graphcons.api import Graphcons  # noqa: E402

NOW = datetime(2026, 11, 30, 3, 30, tzinfo=timezone.utc)


def fresh(g: Graphcons) -> None:  # bench only, on a scratch database
    with g.db.driver.session(database=g.config.neo4j.database) as s:
        s.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS").consume()
    g.init()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=100)
    args = ap.parse_args()
    load, t0, out = os.getloadavg(), time.time(), []
    with Graphcons() as g:
        g.config.jobs.lease_ttl_s = 1.0
        fresh(g)
        g.config.consolidation.enabled, g.config.consolidation.dry_run = True, False
        g.config.consolidation.min_salience, g.config.consolidation.daily_cap = 0.0, 100_000
        out.append(kill_points(g, "consolidate", args.points, NOW, lambda i: add_linked_cluster(g, f"c{i + 1}"),
                               np.random.default_rng(1)))
        fresh(g)
        g.config.merge.auto_apply = True
        out.append(kill_points(g, "merge", args.points, NOW,
                               lambda i: add_duplicate_pairs(g, f"m{i + 1}", seed=i + 1), np.random.default_rng(2)))
    result = {"when": datetime.now(timezone.utc).isoformat(timespec="seconds"), "load_before": load,
              "load_after": os.getloadavg(), "note": "machine loaded (2 cores shared)", "seconds": round(time.time() - t0),
              "runs": out, "violations": 0}
    (ROOT / "bench" / "jobs" / "results" / "kill.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
