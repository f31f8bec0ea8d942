"""The vector index after a bulk load (issue 59): how long do the first single admissions wait, and
what does an agent's put-then-search loop see, per Lucene merge factor of the vector index?

At 1M memories, right after a bulk load and the vector index's population, one admission's commit
once waited more than 9 minutes while Lucene merged the population's segments (docs/DEPLOY.md,
merge factor 2). Per `--variants`, each FACTOR[/MB[/MAX]] (the vector index's merge factor: "neo4j" for
Neo4j's default, 50 in 5.26, or a number such as scripts/neo4j's 2; MB: the index population's RAM
buffer, Neo4j's default 1 MB, which leaves one segment per MB of vectors; MAX: the largest segment, in
MB, Lucene merges with others, Neo4j's default 2048), on a fresh bench server (bench/server.py) started
with them:
1. the synthetic store of bench/merge/speed.py (`--n` memories, written in batches of 1,000, then
   the schema and its vector index built over them: `load_s`, `index_s`);
2. `--settle none`: straight on; `--settle restart`: Neo4j restarted first (`restart_s`), the
   documented way to merge the segments;
3. `--admissions` single admissions (`graphcons.store.admission.admit`, precomputed vectors, existing
   subjects), each timed: `admission_ms` (every one, in order) and `first_admission_ms`;
4. a put-then-search loop (`--loop` times an admission then a namespace retrieve of its own question,
   embedded before the clock): p50 / p95 / max of each.
A watchdog ends a factor's run when one call has waited `--bound` seconds (it stops the server): the
row then says `stalled_s` (at least that long) and what was running.

    python -m bench.store.settle --n 100000 [--variants 2,neo4j,2/256] [--settle none,restart]
        [--admissions 20] [--loop 100] [--bound 900] [--out bench/store/results/settle-100k.json]

Saves the report after every row. Time it on a quiet machine only.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from bench.merge import speed as mbench  # noqa: E402
from bench.retrieval.answers import KnownVectors  # noqa: E402
from bench.server import bench_server, stop_bench_server  # noqa: E402
from graphcons.api import Graphcons  # noqa: E402
from graphcons.core.embedders import make_embedder  # noqa: E402
from graphcons.store.admission import admit  # noqa: E402

RESULTS = ROOT / "bench" / "store" / "results" / "settle.json"


class Watchdog:
    """Stops the bench server when one call has waited `bound` seconds: the stall is then bounded by
    the bench, and the row records it instead of hanging the run."""

    def __init__(self, bound: float):
        self.bound, self.started, self.what, self.fired = bound, None, "", False
        self._stop = threading.Event()
        threading.Thread(target=self._watch, daemon=True).start()

    def call(self, what: str):
        self.what, self.started = what, time.perf_counter()

    def done(self) -> float:
        ms = 1000 * (time.perf_counter() - self.started)
        self.started = None
        return ms

    def _watch(self):
        while not self._stop.wait(1.0):
            if self.started is not None and time.perf_counter() - self.started > self.bound:
                self.fired = True
                stop_bench_server()
                return

    def close(self):
        self._stop.set()


def stats(ms: list[float]) -> dict:
    if not ms:
        return {"n": 0}
    s = sorted(ms)
    return {"p50": round(statistics.median(s), 2), "p95": round(s[min(len(s) - 1, int(0.95 * len(s)))], 2),
            "max": round(s[-1], 2), "n": len(s)}


def one_row(n: int, variant: str, settle: str, args, rng: np.random.Generator) -> dict:
    row: dict = {"load_before": [round(x, 2) for x in os.getloadavg()]}
    factor, mb, max_mb = (variant.split("/") + ["neo4j", "neo4j"])[:3]
    server = dict(heap=args.heap, pagecache=args.pagecache, merge_factor=factor, population_mb=mb,
                  max_merge_mb=max_mb)
    cfg = bench_server(**server)
    # each search of the loop asks its own question, embedded before the clock (admissions bring vectors)
    embedder = KnownVectors(make_embedder(cfg.embedding), [f"settle question {i}" for i in range(args.loop)])
    with Graphcons(cfg, embedder=embedder) as g:
        store = mbench.synthetic_store(n)
        mbench.wipe(g)
        row["load_s"] = round(mbench.write_store(g, store), 1)
        row["index_s"] = round(mbench.build_index(g), 1)
        subjects = [f"subj-{int(s):05d}" for s in store["subjects"][:: max(1, n // 50)]][:50]
        del store
    if settle == "restart":
        t = time.perf_counter()
        bench_server(reset=False, **server)
        row["restart_s"] = round(time.perf_counter() - t, 1)
    row["load_after_build"] = [round(x, 2) for x in os.getloadavg()]

    def unit() -> list[float]:
        v = rng.standard_normal(384)
        return (v / np.linalg.norm(v)).tolist()

    dog = Watchdog(args.bound)
    adm: list[float] = []
    loop_put: list[float] = []
    loop_search: list[float] = []
    try:
        with Graphcons(cfg, embedder=embedder) as g:
            g.warm()  # retrieve's statements planned (reads only: no merge triggered); admission's is not
            for i in range(args.admissions + 2 * args.loop):
                in_loop = i >= args.admissions
                data = {"content": f"settle admission {i} " + " ".join(rng.choice(mbench.WORDS, 12)),
                        "subject": subjects[i % len(subjects)], "namespace": "default", "source": "bench-settle"}
                dog.call(f"admission {i}")
                admit(g.db, g.config, embedder, data, embedding=unit())
                (loop_put if in_loop else adm).append(dog.done())
                if in_loop:
                    dog.call(f"search after admission {i}")
                    g.retrieve(f"settle question {len(loop_search)}", k=10, namespace="default", record=False)
                    loop_search.append(dog.done())
                if in_loop and len(loop_search) >= args.loop:
                    break
    except Exception as e:  # the watchdog stopped the server under a stalled call
        if not dog.fired:
            raise
        row["stalled_s"] = args.bound
        row["stalled_during"] = dog.what
        row["error"] = f"{type(e).__name__}: {str(e)[:200]}"
    finally:
        dog.close()
    row["admission_ms"] = [round(x, 1) for x in adm]
    row["first_admission_ms"] = row["admission_ms"][0] if adm else None
    row["admissions"] = stats(adm)
    row["put_then_search"] = {"put_ms": stats(loop_put), "search_ms": stats(loop_search)}
    row["load_after"] = [round(x, 2) for x in os.getloadavg()]
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--variants", default="2,neo4j", help="FACTOR[/MB[/MAX]],...: merge factor, population buffer, max merge")
    ap.add_argument("--settle", default="none", help="none, restart or both (none,restart)")
    ap.add_argument("--admissions", type=int, default=20)
    ap.add_argument("--loop", type=int, default=100)
    ap.add_argument("--bound", type=float, default=900.0, help="seconds one call may wait before the run ends")
    ap.add_argument("--heap", default="4g")
    ap.add_argument("--pagecache", default="2g")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    report = {"benchmark": "settle", "command": "python -m bench.store." + Path(sys.argv[0]).stem + " "
              + " ".join(sys.argv[1:]), "cores": os.cpu_count(), "n": args.n,
              "neo4j": {"heap": args.heap, "pagecache": args.pagecache}, "rows": {}}
    rng = np.random.default_rng(59)
    for variant in args.variants.split(","):
        for settle in args.settle.split(","):
            key = f"{variant} {settle}"
            print(f"{time.strftime('%H:%M:%S')} {args.n:,} memories, variant {variant}, settle {settle}", flush=True)
            report["rows"][key] = row = one_row(args.n, variant, settle, args, rng)
            print(json.dumps({k: v for k, v in row.items() if k != "admission_ms"}), flush=True)
            args.out.write_text(json.dumps(report, indent=2) + "\n")
    stop_bench_server()


if __name__ == "__main__":
    main()
