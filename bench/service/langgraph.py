"""How fast is the LangGraph store? (issue 49) `put` and `search` of GraphconsStore beside LangGraph's
InMemoryStore, same texts, same embedder, the embedding excluded.

Texts: distinct user turns of ../shared/data/longmemeval-dev.json (the first `size` of them), written
as a LangGraph program writes memories, `store.put(("memories", "user-1"), key, {"data": text})`;
queries: its questions. Every vector is computed before the clock starts (a cache stands in for the
embedder on both sides), so the figures are the stores' own. Per size (1k, 10k): p50 / p95 of `put`
over the last `--sample` writes, then of `search(("memories", "user-1"), query=q, limit=5)`:
- `inmemory`: langgraph.store.memory.InMemoryStore with the same vectors;
- `graphcons`: GraphconsStore over the facade, in process;
- `graphcons_http` (1k only: HTTP puts cost ~2x): GraphconsStore over `graphcons serve`'s app.
`first_call_ms`: a fresh process that constructs the in-process store (warm-up included, timed
apart) and then searches once. `put_then_search` (issues 59, 63): what an agent does every turn, after
the `size` items, `--loop` times a put of a new item then a search: p50 / p95 / max of each, both stores.

`--merge-factors lucene,2` (issue 59) runs the graphcons store once per vector-index merge factor of the
bench server (Lucene's default, 10, and scripts/neo4j's 2), each on a fresh server: the rows go under
`merge_factor[factor][size]`.

    python -m bench.service.langgraph [--sizes 1000,10000] [--queries 50] [--loop 200] [--merge-factors lucene,2]

Uses the throwaway bench server (bench/server.py), wiped per size. Saves
bench/service/results/langgraph.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from bench.retrieval.answers import KnownVectors as Cached  # noqa: E402  (every bench text embedded up front)
from bench.server import bench_server  # noqa: E402
from graphcons.api import Graphcons  # noqa: E402
from graphcons.core.embedders import make_embedder  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "longmemeval-dev.json"
RESULTS = ROOT / "bench" / "service" / "results" / "langgraph.json"
NS = ("memories", "user-1")


def texts_and_queries(size: int, queries: int) -> tuple[list[str], list[str]]:
    data = json.loads(DATA.read_text())
    seen: dict[str, None] = {}
    for q in data:
        for session in q["haystack_sessions"]:
            for t in session:
                text = " ".join(t["content"].split())[:2000]
                if t["role"] == "user" and text:
                    seen.setdefault(text, None)
    distinct = list(seen)
    texts = distinct[:size]
    n = 0
    while len(texts) < size:  # fewer distinct turns than asked: each again, marked, until there are enough
        texts.append(f"{distinct[n % len(distinct)]} (again, {n})")
        n += 1
    return texts, [q["question"] for q in data[:queries]]


def ms(values: list[float]) -> dict[str, float]:
    values = sorted(values)
    return {"p50": round(statistics.median(values), 2), "p95": round(values[int(0.95 * (len(values) - 1))], 2),
            "max": round(values[-1], 2), "n": len(values)}


def put_then_search(store, fresh: list[str], queries: list[str]) -> dict:
    """An agent's turn, len(fresh) times: remember one new item, then search."""
    puts, searches = [], []
    for n, text in enumerate(fresh):
        t = time.perf_counter()
        store.put(NS, f"turn{n}", {"data": text})
        t1 = time.perf_counter()
        store.search(NS, query=queries[n % len(queries)], limit=5)
        puts.append(1000 * (t1 - t))
        searches.append(1000 * (time.perf_counter() - t1))
    return {"put_ms": ms(puts), "search_ms": ms(searches)}


def timed(store, texts: list[str], queries: list[str], sample: int) -> dict:
    puts = []
    for n, text in enumerate(texts):
        t = time.perf_counter()
        store.put(NS, f"k{n}", {"data": text})
        if n >= len(texts) - sample:
            puts.append(1000 * (time.perf_counter() - t))
    searches = []
    for q in queries:
        t = time.perf_counter()
        store.search(NS, query=q, limit=5)
        searches.append(1000 * (time.perf_counter() - t))
    return {"put_ms": ms(puts), "search_ms": ms(searches)}


def inmemory(cached: Cached, texts, queries, sample, fresh) -> dict:
    from langgraph.store.memory import InMemoryStore

    store = InMemoryStore(index={"dims": 384, "embed": cached.embed, "fields": ["data"]})
    return {**timed(store, texts, queries, sample), "put_then_search": put_then_search(store, fresh, queries)}


def in_process(cfg, cached: Cached, texts, queries, sample, fresh) -> dict:
    from graphcons.integrations.langgraph import GraphconsStore

    with Graphcons(cfg, embedder=cached) as g:
        g.init()
        with GraphconsStore(g) as store:
            return {**timed(store, texts, queries, sample), "put_then_search": put_then_search(store, fresh, queries)}


def over_http(cfg, cached: Cached, texts, queries, sample) -> dict:
    import uvicorn

    from graphcons.integrations.langgraph import GraphconsStore
    from graphcons.service import create_app

    with Graphcons(cfg, embedder=cached) as g:
        token, _ = g.create_token("bench", ["*"], "writer")
    app = create_app(cfg, embedder=cached)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=8799, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        with GraphconsStore.over_http("http://127.0.0.1:8799", token) as store:
            return timed(store, texts, queries, sample)
    finally:
        server.should_exit = True
        thread.join(timeout=30)


FIRST_CALL = """
import sys, time, json
from graphcons.api import Graphcons
from graphcons.core.config import Config, Neo4jConfig
from graphcons.integrations.langgraph import GraphconsStore
cfg = Config(neo4j=Neo4jConfig(uri=sys.argv[1], password=sys.argv[2]))
t0 = time.perf_counter()
g = Graphcons(cfg)
store = GraphconsStore(g)
t1 = time.perf_counter()
store.search(("memories", "user-1"), query=sys.argv[3], limit=5)
t2 = time.perf_counter()
print(json.dumps({"construct_ms": round(1000 * (t1 - t0), 1), "first_search_ms": round(1000 * (t2 - t1), 1)}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000", type=lambda v: [int(x) for x in v.split(",")])
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--sample", type=int, default=200, help="puts timed: the last n of each size")
    ap.add_argument("--loop", type=int, default=200, help="put-then-search turns after each size")
    ap.add_argument("--merge-factors", type=lambda v: v.split(","),
                    help="compare the vector index's merge factors (lucene = Lucene's default), graphcons store only")
    args = ap.parse_args()
    load_before = os.getloadavg()
    report: dict = {"command": " ".join(["python -m bench.service.langgraph"] + sys.argv[1:]), "sizes": {}}
    if args.merge_factors:
        report["merge_factor"] = {}
        for factor in args.merge_factors:
            for size in args.sizes:
                texts, queries = texts_and_queries(size + args.loop, args.queries)
                cfg = bench_server(heap="1g", pagecache="512m", merge_factor=factor)
                cached = Cached(make_embedder(cfg.embedding), texts + queries)
                row = in_process(cfg, cached, texts[:size], queries, args.sample, texts[size:])
                report["merge_factor"].setdefault(factor, {})[str(size)] = row
                print(json.dumps({factor: {size: row}}, indent=2), flush=True)
                report["load"] = {"before": [round(x, 2) for x in load_before],
                                  "after": [round(x, 2) for x in os.getloadavg()]}
                RESULTS.with_name("langgraph_merge_factor.json").write_text(json.dumps(report, indent=2) + "\n")
        return
    for size in args.sizes:
        texts, queries = texts_and_queries(size + args.loop, args.queries)
        texts, fresh = texts[:size], texts[size:]
        cfg = bench_server(heap="1g", pagecache="512m")
        cached = Cached(make_embedder(cfg.embedding), texts + fresh + queries)
        row = {"inmemory": inmemory(cached, texts, queries, args.sample, fresh)}
        row["graphcons"] = in_process(cfg, cached, texts, queries, args.sample, fresh)
        out = subprocess.run([sys.executable, "-c", FIRST_CALL, cfg.neo4j.uri, cfg.neo4j.resolved_password(),
                              queries[0]], capture_output=True, text=True, check=True,
                             env=dict(os.environ, PYTHONPATH=str(ROOT)))
        row["first_call_ms"] = json.loads(out.stdout.strip().splitlines()[-1])
        if size <= 1000:
            cfg = bench_server(heap="1g", pagecache="512m")
            with Graphcons(cfg, embedder=cached) as g:
                g.init()
            row["graphcons_http"] = over_http(cfg, cached, texts, queries, args.sample)
        report["sizes"][str(size)] = row
        print(json.dumps({size: row}, indent=2), flush=True)
    report["load"] = {"before": [round(x, 2) for x in load_before], "after": [round(x, 2) for x in os.getloadavg()]}
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
