"""How fast is the LangGraph store? (issues 49, 63) `put` and `search` of GraphconsStore beside the two
stores a LangGraph user would pick instead, LangGraph's InMemoryStore and its PostgresStore with pgvector,
on the same items, queries and vectors, the embedding excluded.

Texts: distinct user turns of ../shared/data/longmemeval-dev.json (the first `size` of them), written
as a LangGraph program writes memories, `store.put(("memories", "user-1"), key, {"data": text})`;
queries: its questions. Every vector is computed before the clock starts (one cache stands in for the
embedder of every store: `index={"dims": 384, "embed": cache, "fields": ["data"]}` for LangGraph's two),
so the figures are the stores' own. Per size (1k, 10k): p50 / p95 of `put` over the last `--sample`
writes, then of `search(("memories", "user-1"), query=q, limit=5)`:
- `inmemory`: langgraph.store.memory.InMemoryStore;
- `postgres`: langgraph.store.postgres.PostgresStore (`from_conn_string`; its default index, HNSW with
  cosine, where the server's pgvector has HNSW (0.5.0 on), else none, an exact scan: the row's `index`
  and `pgvector` say which, `--pg-index` picks; `setup()` before the clock) on the bench's own throwaway
  PostgreSQL (bench/postgres_server.py: .postgres-bench, 127.0.0.1:5497, initdb'd at the start, a fresh
  database per size, stopped at the end);
- `graphcons`: GraphconsStore over the facade, in process;
- `graphcons_http` (1k only: HTTP puts cost ~2x): GraphconsStore over `graphcons serve`'s app.
In that order, each size on a freshly reset Neo4j bench server (idle while the others run);
`vector_search_ms`: the loaded graphcons store searched with mode="vector" (the nearest items only, as
LangGraph's stores rank: no keyword list, no graph step).
`first_call_ms`: a fresh process that constructs the store (graphcons: the facade and the store's
warm-up, `embedder_ms` and `warm_ms` apart; `first_call_again_ms` a second such process, whose server
plans the first made again: the store grew from nothing within the run, so the first replans; postgres: the same embedder loaded, then `from_conn_string`'s connection) and then searches
once. `put_then_search` (issues 59, 63): what an agent does every turn, after the `size` items, `--loop`
times a put of a new item then a search: p50 / p95 / max of each, every store. `round_trips`: one more
put of a new item and one search, counted apart from the timed calls: graphcons the statements sent to
Neo4j (core.db.counted; `queries` names them), over HTTP the requests, postgres the exchanges in libpq's
protocol trace (messages sent, then the server's answer; `statements`: the statements in them),
InMemoryStore none.

The report keeps each size's rows under `sizes[size]` (`put_ms`, `search_ms`, `put_then_search`,
`first_call_ms`: as before issue 63) and states them as issue 63's Targets read them under
`store[size][store_name]`: `put` / `search` = {p50, p95, max, n} in ms, `put_then_search` = {put,
search}, `construct_ms`, `first_call_ms` (the first search after construction), `round_trips` =
{put, search}.

`--merge-factors lucene,2` (issue 59) runs the graphcons store once per vector-index merge factor of the
bench server (Neo4j's default, 50 in 5.26, named "lucene" or "neo4j", and scripts/neo4j's 2), each on a fresh server: the rows go under
`merge_factor[factor][size]`.

    python -m bench.service.langgraph [--sizes 1000,10000] [--queries 50] [--loop 200]
                                      [--stores inmemory,postgres,graphcons] [--pg-index auto]
                                      [--merge-factors lucene,2] [--out FILE]

Uses the throwaway bench server (bench/server.py), wiped per size, and the throwaway PostgreSQL (when
`postgres` is among --stores: without PostgreSQL, pgvector or the Python packages it says what is missing
and stops before any work). Saves bench/service/results/langgraph.json (or --out).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from bench import postgres_server  # noqa: E402
from bench.retrieval.answers import KnownVectors as Cached  # noqa: E402  (every bench text embedded up front)
from bench.server import bench_server  # noqa: E402
from graphcons.api import Graphcons  # noqa: E402
from graphcons.core.config import Config  # noqa: E402
from graphcons.core.db import counted  # noqa: E402
from graphcons.core.embedders import make_embedder  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "longmemeval-dev.json"
RESULTS = ROOT / "bench" / "service" / "results" / "langgraph.json"
NS = ("memories", "user-1")
STORES = ("inmemory", "postgres", "graphcons")


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
    return {"put_ms": ms(puts), "search_ms": searched(store, queries)}


def searched(store, queries: list[str]) -> dict:
    """p50 / p95 / max of `search(NS, query=q, limit=5)` over the queries."""
    searches = []
    for q in queries:
        t = time.perf_counter()
        store.search(NS, query=q, limit=5)
        searches.append(1000 * (time.perf_counter() - t))
    return ms(searches)


def index_config(cached: Cached) -> dict:
    """LangGraph's index for its own stores: the bench's cached vectors, the field graphcons reads."""
    return {"dims": cached.dimensions, "embed": cached.embed, "fields": ["data"]}


def inmemory(cached: Cached, texts, queries, sample, fresh) -> dict:
    from langgraph.store.memory import InMemoryStore

    store = InMemoryStore(index=index_config(cached))
    return {**timed(store, texts, queries, sample), "put_then_search": put_then_search(store, fresh, queries),
            "round_trips": {"put": 0, "search": 0}}


def trips_in_trace(lines: list[str]) -> dict[str, int]:
    """Round trips in libpq's protocol trace (PQtrace, timestamps suppressed: "F|B <len> <message> ..."):
    each run of messages the client sent followed by the server's answer is one; `statements` counts the
    statements sent (Bind of the extended protocol, Query of the simple one)."""
    trips = statements = 0
    last = None
    for line in lines:
        fields = line.split("\t")
        direction = fields[0]
        if direction not in ("F", "B"):
            continue
        if direction == "B" and last == "F":
            trips += 1
        if direction == "F" and len(fields) > 2 and fields[2] in ("Bind", "Query"):
            statements += 1
        last = direction
    return {"round_trips": trips, "statements": statements}


@contextmanager
def pg_traced(conn) -> Iterator[dict]:
    """The round trips a psycopg connection makes inside the block (trips_in_trace), filled on exit."""
    from psycopg import pq

    found: dict = {}
    with tempfile.TemporaryFile() as f:
        conn.pgconn.trace(os.dup(f.fileno()))  # libpq writes through its own FILE of a duplicate
        conn.pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)
        try:
            yield found
        finally:
            conn.pgconn.untrace()  # flushes the trace
        f.seek(0)
        found.update(trips_in_trace(f.read().decode(errors="replace").splitlines()))


def pg_index(url: str, asked: str) -> tuple[str, str]:
    """The vector index PostgresStore builds: its default, HNSW, where the server's pgvector has it
    (0.5.0 on), else `flat` (no index: an exact scan); `asked` (hnsw, ivfflat, flat) overrides."""
    version = postgres_server.pgvector_version(url)
    if asked == "auto":
        asked = "hnsw" if version >= (0, 5) else "flat"
    return asked, ".".join(map(str, version))


def postgres(url: str, cached: Cached, texts, queries, sample, fresh, extra: str, kind: str = "hnsw") -> dict:
    from langgraph.store.postgres import PostgresStore

    index = {**index_config(cached), "ann_index_config": {"kind": kind}}
    with PostgresStore.from_conn_string(url, index=index) as store:
        store.setup()  # tables, the vector extension, the HNSW index: once, as a user does, before the clock
        row = {**timed(store, texts, queries, sample), "put_then_search": put_then_search(store, fresh, queries)}
        with pg_traced(store.conn) as put:
            store.put(NS, "round-trips", {"data": extra})
        with pg_traced(store.conn) as search:
            store.search(NS, query=queries[0], limit=5)
    row["round_trips"] = {"put": put["round_trips"], "search": search["round_trips"]}
    row["statements"] = {"put": put["statements"], "search": search["statements"]}
    return row


def stages(store, fresh: list[str], queries: list[str]) -> dict:
    """Where a put and a search spend their time (issue 63: a missed target explained by its stage):
    per statement, the p50 of the time this process spent on it (`wall`) and of the server's own
    (`server`); `rest` is the call's time less that of the statements sent from the calling thread:
    Python's own work, plus whatever the statement read alongside (the keyword list, `alongside` true
    in core.db) took beyond the one it overlapped (the vector list). One put of a new key, then one
    search, per query; the put's text is one of the loop's (its vector is in the cache: no embedding)."""
    trips: dict[str, dict[str, list[float]]] = {"put": {}, "search": {}}
    rest: dict[str, list[float]] = {"put": [], "search": []}
    for n, q in enumerate(queries):
        for op, call in (("put", lambda: store.put(NS, f"stage{n}", {"data": fresh[n % len(fresh)]})),
                         ("search", lambda: store.search(NS, query=q, limit=5))):
            with counted() as tally:
                t = time.perf_counter()
                call()
                took = 1000 * (time.perf_counter() - t)
            for trip in tally.trips:
                at = trips[op].setdefault(trip.name, {"wall": [], "server": []})
                at["wall"].append(trip.wall_ms)
                at["server"].append(trip.server_ms)
            rest[op].append(took - sum(t.wall_ms for t in tally.trips if not t.alongside))
    return {op: {**{name: {k: round(statistics.median(v), 2) for k, v in at.items()} for name, at in by.items()},
                 "rest": round(statistics.median(rest[op]), 2)} for op, by in trips.items()}


def in_process(cfg, cached: Cached, texts, queries, sample, fresh, extra: str) -> dict:
    from graphcons.integrations.langgraph import GraphconsStore

    with Graphcons(cfg, embedder=cached) as g:
        g.init()
        with GraphconsStore(g) as store:
            row = {**timed(store, texts, queries, sample), "put_then_search": put_then_search(store, fresh, queries)}
            with counted() as put:
                store.put(NS, "round-trips", {"data": extra})
            with counted() as search:
                store.search(NS, query=queries[0], limit=5)
            row["stages"] = stages(store, fresh, queries)
        # the same store searched as LangGraph's stores rank: the nearest items only (mode="vector": no
        # keyword list, no graph step), what the hybrid ranking costs beside it
        with GraphconsStore(g, mode="vector") as nearest:
            row["vector_search_ms"] = searched(nearest, queries)
            with counted() as vector:
                nearest.search(NS, query=queries[0], limit=5)
    row["round_trips"] = {"put": put.round_trips, "search": search.round_trips, "vector_search": vector.round_trips}
    row["queries"] = {"put": put.names, "search": search.names, "vector_search": vector.names}
    return row


def over_http(cfg, cached: Cached, texts, queries, sample, extra: str) -> dict:
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
            row = timed(store, texts, queries, sample)
            sent: list[str] = []  # each request's method and route area (no key: a key is user content)
            store.backend.client.event_hooks = {"request": [
                lambda r: sent.append(f"{r.method} {'/'.join(r.url.path.split('/')[:3])}")], "response": []}
            store.put(NS, "round-trips", {"data": extra})
            put = list(sent)
            sent.clear()
            store.search(NS, query=queries[0], limit=5)
            row["round_trips"] = {"put": len(put), "search": len(sent)}
            row["requests"] = {"put": put, "search": list(sent)}
            return row
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
g.embedder  # loaded (and the store checked against it): the part PostgresStore's figure has too
te = time.perf_counter()
store = GraphconsStore(g)
t1 = time.perf_counter()
store.search(("memories", "user-1"), query=sys.argv[3], limit=5)
t2 = time.perf_counter()
print(json.dumps({"embedder_ms": round(1000 * (te - t0), 1), "warm_ms": round(1000 * (t1 - te), 1),
                  "construct_ms": round(1000 * (t1 - t0), 1), "first_search_ms": round(1000 * (t2 - t1), 1)}))
"""

# The same for PostgresStore: the embedder a user needs with it (graphcons' own, loaded as the facade loads
# it), then the connection; the URL comes in the environment, not on a command line.
PG_FIRST_CALL = """
import os, sys, time, json
from graphcons.core.config import Config
from graphcons.core.embedders import make_embedder
from langgraph.store.postgres import PostgresStore
t0 = time.perf_counter()
embedder = make_embedder(Config().embedding)
t1 = time.perf_counter()
index = {"dims": embedder.dimensions, "embed": embedder.embed, "fields": ["data"]}
with PostgresStore.from_conn_string(os.environ["GRAPHCONS_BENCH_PG_URL"], index=index) as store:
    t2 = time.perf_counter()
    store.search(("memories", "user-1"), query=sys.argv[1], limit=5)
    t3 = time.perf_counter()
print(json.dumps({"embedder_ms": round(1000 * (t1 - t0), 1), "connect_ms": round(1000 * (t2 - t1), 1),
                  "construct_ms": round(1000 * (t2 - t0), 1), "first_search_ms": round(1000 * (t3 - t2), 1)}))
"""


def fresh_process(script: str, *args: str, env: dict | None = None) -> dict:
    out = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT), **(env or {})))
    return json.loads(out.stdout.strip().splitlines()[-1])


def targets_view(row: dict) -> dict:
    """One size's rows as issue 63's Targets read them: store_name -> {put, search, put_then_search,
    construct_ms, first_call_ms, round_trips}."""
    out: dict = {}
    for name in ("inmemory", "postgres", "graphcons", "graphcons_http"):
        if name not in row:
            continue
        r = row[name]
        view = {"put": r["put_ms"], "search": r["search_ms"]}
        if "vector_search_ms" in r:
            view["vector_search"] = r["vector_search_ms"]
        if "stages" in r:
            view["stages"] = r["stages"]
        if "put_then_search" in r:
            view["put_then_search"] = {"put": r["put_then_search"]["put_ms"],
                                       "search": r["put_then_search"]["search_ms"]}
        first = row.get("first_call_ms") if name == "graphcons" else r.get("first_call_ms")
        if first:
            view["construct_ms"] = first["construct_ms"]
            view["first_call_ms"] = first["first_search_ms"]
        if name == "graphcons" and row.get("first_call_again_ms"):
            view["construct_again_ms"] = row["first_call_again_ms"]["construct_ms"]
            view["first_call_again_ms"] = row["first_call_again_ms"]["first_search_ms"]
        if "round_trips" in r:
            view["round_trips"] = r["round_trips"]
        if "index" in r:
            view["index"] = r["index"]
        out[name] = view
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000", type=lambda v: [int(x) for x in v.split(",")])
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--sample", type=int, default=200, help="puts timed: the last n of each size")
    ap.add_argument("--loop", type=int, default=200, help="put-then-search turns after each size")
    ap.add_argument("--stores", default=",".join(STORES), type=lambda v: v.split(","),
                    help=f"which of {', '.join(STORES)} (graphcons brings graphcons_http at 1k)")
    ap.add_argument("--pg-index", default="auto", choices=("auto", "hnsw", "ivfflat", "flat"),
                    help="PostgresStore's vector index (auto: its default, HNSW, where pgvector has it, else flat)")
    ap.add_argument("--merge-factors", type=lambda v: v.split(","),
                    help="compare the vector index's merge factors (lucene or neo4j = Neo4j's default, 50 in 5.26), graphcons store only")
    ap.add_argument("--out", type=Path, default=RESULTS, help="where the report goes")
    args = ap.parse_args()
    if unknown := set(args.stores) - set(STORES):
        ap.error(f"unknown store {', '.join(sorted(unknown))} (stores: {', '.join(STORES)})")
    load_before = os.getloadavg()
    report: dict = {"command": " ".join(["python -m bench.service.langgraph"] + sys.argv[1:]), "sizes": {}}
    if args.merge_factors:
        report["merge_factor"] = {}
        for factor in args.merge_factors:
            for size in args.sizes:
                texts, queries = texts_and_queries(size + args.loop + 1, args.queries)
                cfg = bench_server(heap="1g", pagecache="512m", merge_factor=factor)
                cached = Cached(make_embedder(cfg.embedding), texts + queries)
                row = in_process(cfg, cached, texts[:size], queries, args.sample, texts[size:-1], texts[-1])
                report["merge_factor"].setdefault(factor, {})[str(size)] = row
                print(json.dumps({factor: {size: row}}, indent=2), flush=True)
                report["load"] = {"before": [round(x, 2) for x in load_before],
                                  "after": [round(x, 2) for x in os.getloadavg()]}
                args.out.with_name(args.out.stem + "_merge_factor.json").write_text(json.dumps(report, indent=2) + "\n")
        return
    pg_url = None
    if "postgres" in args.stores:
        try:
            pg_url = postgres_server.start()
        except postgres_server.Missing as exc:
            sys.exit(f"bench.service.langgraph: {exc}\n(or leave PostgresStore out: --stores inmemory,graphcons)")
    try:
        report["store"] = {}
        for size in args.sizes:
            texts, queries = texts_and_queries(size + args.loop + 1, args.queries)
            texts, fresh, extra = texts[:size], texts[size:-1], texts[-1]
            cfg = bench_server(heap="1g", pagecache="512m") if "graphcons" in args.stores else Config()
            cached = Cached(make_embedder(cfg.embedding), texts + fresh + [extra] + queries)
            row: dict = {}
            if "inmemory" in args.stores:
                row["inmemory"] = inmemory(cached, texts, queries, args.sample, fresh)
            if pg_url is not None:
                url = postgres_server.fresh_database()
                kind, version = pg_index(url, args.pg_index)
                row["postgres"] = {"index": kind, "pgvector": version,
                                   **postgres(url, cached, texts, queries, args.sample, fresh, extra, kind)}
                row["postgres"]["first_call_ms"] = fresh_process(PG_FIRST_CALL, queries[0],
                                                                 env={"GRAPHCONS_BENCH_PG_URL": url})
            if "graphcons" in args.stores:
                row["graphcons"] = in_process(cfg, cached, texts, queries, args.sample, fresh, extra)
                row["first_call_ms"] = fresh_process(FIRST_CALL, cfg.neo4j.uri, cfg.neo4j.resolved_password(),
                                                     queries[0])
                # a second fresh process: the server's plans made again by the first (statistics moved as
                # the store grew from nothing), as a restart on a settled store finds them
                row["first_call_again_ms"] = fresh_process(FIRST_CALL, cfg.neo4j.uri, cfg.neo4j.resolved_password(),
                                                           queries[0])
                if size <= 1000:
                    cfg = bench_server(heap="1g", pagecache="512m")
                    with Graphcons(cfg, embedder=cached) as g:
                        g.init()
                    row["graphcons_http"] = over_http(cfg, cached, texts, queries, args.sample, extra)
            report["sizes"][str(size)] = row
            report["store"][str(size)] = targets_view(row)
            print(json.dumps({size: row}, indent=2), flush=True)
    finally:
        if pg_url is not None:
            postgres_server.stop()
    report["load"] = {"before": [round(x, 2) for x in load_before], "after": [round(x, 2) for x in os.getloadavg()]}
    args.out.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
