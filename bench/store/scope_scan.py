"""Exact scope scan vs vector index for SIMILAR neighbours (issues 9, 12).

Writes scopes (one namespace, one subject each) of 1k, 5k and 20k memories with clustered
random unit vectors (384 dims), then for 20 memories of each scope times the exact query
(cypher/similar/exact.cypher: cosine against the whole scope) and the index query
(cypher/similar/index.cypher, pool 100, exact re-score) and checks their top-5 agree.
The crossover sets `admission.exact_scope_max` / `retrieval.exact_scope_max`.

    python -m bench.store.scope_scan [--uri bolt://...]   # --uri / $NEO4J_URI: WIPED first

Saves bench/store/results/scope_scan.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench import command  # noqa: E402
from bench.server import bench_server, stop_bench_server  # noqa: E402
from graphcons.api import Graphcons  # noqa: E402
from graphcons.core.config import Config, Neo4jConfig  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "scope_scan.json"
SIZES = (1000, 5000, 20000)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--uri", default=os.environ.get("NEO4J_URI"))
    args = ap.parse_args()
    cfg = (Config(neo4j=Neo4jConfig(uri=args.uri, password=os.environ.get("NEO4J_PASSWORD") or None))
           if args.uri else bench_server(heap="1g", pagecache="512m"))
    rng = np.random.default_rng(0)
    out = {"command": command("bench.store.scope_scan"),
           "load_before": [round(x, 2) for x in os.getloadavg()], "scopes": {}}
    with Graphcons(cfg) as g:
        with g.db.driver.session(database=cfg.neo4j.database) as session:
            session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS").consume()
        g.init()
        for size in SIZES:
            centres = rng.normal(size=(50, 384))
            for start in range(0, size, 2000):
                rows = []
                for i in range(start, min(size, start + 2000)):
                    v = centres[i % 50] + 0.7 * rng.normal(size=384)
                    rows.append({"id": f"s{size}-{i:06d}", "namespace": "ns", "subject": f"s{size}",
                                 "status": "active", "embedding": (v / np.linalg.norm(v)).tolist(), "admitted_at": i})
                g.db.run("merge/bench_load", rows=rows)
        params = dict(k=5, floor=0.0, live=["active"], earlier_only=False, exclude=[])
        for size in SIZES:
            exact_ms, index_ms, agree = [], [], 0
            for rep in range(2):  # the first pass warms the page cache; the second is reported
                exact_ms, index_ms, agree = [], [], 0
                for q in range(20):
                    mid = f"s{size}-{q * 37 % size:06d}"
                    with g.db.transaction() as tx:
                        t = time.perf_counter()
                        ex = tx.run("similar/exact", id=mid, **params)
                        exact_ms.append(1000 * (time.perf_counter() - t))
                        t = time.perf_counter()
                        row = tx.run("similar/index", id=mid, candidates=100, exclude=[], **{**params, "k": None})[0]
                        index_ms.append(1000 * (time.perf_counter() - t))
                    top = sorted(row["scoped"], key=lambda c: (-c["score"], c["id"]))[:5]
                    agree += [c["id"] for c in top] == [r["id"] for r in ex]
            out["scopes"][size] = {"exact_p50_ms": round(statistics.median(exact_ms), 1),
                                   "index_pool100_p50_ms": round(statistics.median(index_ms), 1),
                                   "index_top5_equals_exact": f"{agree}/20"}
            print(size, out["scopes"][size])
    if not args.uri:
        stop_bench_server()
    out["uptime"] = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=2) + "\n")
    print(out["uptime"])


if __name__ == "__main__":
    main()
