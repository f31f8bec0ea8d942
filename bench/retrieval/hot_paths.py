"""Where a retrieve, a context and an add spend their time (issue 52), and what they cost against
another commit, query by query.

On bench/retrieval/latency.py's synthetic store (bench/merge/speed.py's memories with their SIMILAR
and CO_ACCESSED edges, communities from a scan) of each --sizes, for `retrieve(k=10)` and
`context(q, 300)` in the namespace scope and a subject scope, before and after a consolidation pass
(bench/retrieval/answers.py's `consolidate_all`: the offline synthesizer, every proposal approved):
- p50 / p95 per call excluding the embedding (the query vectors are computed up front), each call
  made by a worker process of this checkout and, with --against, by one of that commit (a git
  worktree, as bench/retrieval/identity.py makes it) on the same store, in turn query by query;
- `breakdown`: per stage (each statement sent, graphcons.core.db.counted), the round trips per
  call, the server's own time (the driver's result summary) and the client's time p50, and the
  Python time (the call's time less its statements' on the calling thread);
- `first_call_ms`: a fresh process constructs Graphcons (warmed where the code can) and makes its
  first retrieve and context with the real embedder, then a second of each (after the timed
  "before" phase: the server has run the statements, as it has when a new app process joins);
- `floors[size][phase]`: the bare statements beneath a namespace retrieve on the same store (a round
  trip, the vector and full-text index searches alone) beside the two list statements as sent;
- admission p50 / p95 per size excluding the embedding (`admit` with a precomputed vector, a new
  memory into an existing subject), with its breakdown; they run last, after every retrieval.

    python -m bench.retrieval.hot_paths --uri bolt://127.0.0.1:7703 [--sizes 10k,100k:100,1m:100:before,locomo]
        [--queries 200] [--admissions 300] [--against b3b9985] [--no-after]

A size is `SIZE[:QUERIES][:before]`: its own number of timed queries (else --queries), and `before`
to skip its consolidation pass (a 1M store's pass takes hours). The size `locomo` is a real store
(issue 61): the four LoCoMo dev conversations as bench/retrieval/answers.py stores them (943 memories),
asked that bench's own questions in their conversation's namespace with their own date (its queries
at most the bench's asked half); no admissions are timed on it.

--uri (or $NEO4J_URI; password $NEO4J_PASSWORD) is WIPED first. Saves
bench/retrieval/results/hot_paths.json (--out). Validate it small (--sizes 2k --queries 10); time it on
a quiet machine only.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "retrieval" / "results" / "hot_paths.json"
CALLS = ("retrieve", "context")
SCOPES = ("namespace", "subject")
REAL = "locomo"  # the size label of the real store: the four LoCoMo dev conversations (issue 61)


class Query(NamedTuple):
    """A timed query: its text, its vector (computed before the clock), its subject scope (None: the
    namespace only), its namespace and (a real question) its own date."""

    text: str
    vector: list[float]
    subject: str | None
    namespace: str = "default"
    now: str | None = None


# --- the worker: one process per side, answering one call per line -------------------------------

def worker(uri: str, password: str | None) -> None:
    """Reads one JSON request a line on stdin, answers one line: the call's ms and its statements.
    Imports graphcons only (the one on $PYTHONPATH: this checkout's or the baseline's)."""
    from graphcons.api import Graphcons
    from graphcons.core import db as gdb
    from graphcons.core.config import Config, Neo4jConfig
    from graphcons.core.embedders import make_embedder
    from graphcons.store.admission import admit

    class Known:  # the embedder, except that each query's vector comes with its request
        def __init__(self, inner):
            self.inner, self.vector = inner, None

        def embed_one(self, text: str) -> list[float]:
            return self.vector if self.vector is not None else self.inner.embed_one(text)

        def __getattr__(self, name):
            return getattr(self.inner, name)

    cfg = Config(neo4j=Neo4jConfig(uri=uri, password=password))
    embedder = Known(make_embedder(cfg.embedding))
    counted = getattr(gdb, "counted", None)  # absent before issue 52: no breakdown for that side
    with Graphcons(cfg, embedder=embedder) as g:
        takes_now = "now" in inspect.signature(g.retrieve).parameters
        print(json.dumps({"ready": True}), flush=True)
        for line in sys.stdin:
            req = json.loads(line)
            embedder.vector = req.get("vector")
            trips = None
            # a real question's own date (the LoCoMo store), where the side's retrieve takes one (issue 61 on)
            when = {"now": req["now"]} if req.get("now") and takes_now else {}
            with (counted() if counted else _nothing()) as tally:
                t = time.perf_counter()
                if req["call"] == "retrieve":
                    g.retrieve(req["text"], k=10, namespace=req["namespace"], subject=req["subject"], record=False,
                               **when)
                elif req["call"] == "context":
                    g.context(req["text"], 300, namespace=req["namespace"], subject=req["subject"], record=False,
                              **when)
                else:
                    admit(g.db, g.config, embedder, req["data"], embedding=req["vector"])
                ms = 1000 * (time.perf_counter() - t)
            if tally is not None:
                trips = [[x.name, x.server_ms, x.wall_ms, x.round_trips, x.alongside] for x in tally.trips]
            print(json.dumps({"ms": ms, "trips": trips}), flush=True)


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def first_call(uri: str, password: str | None, texts: list[list[str]]) -> None:
    """A fresh process: construct (warmed when the code has it), then two retrieves and contexts
    (`texts`: [question, namespace] each)."""
    t0 = time.perf_counter()
    from graphcons.api import Graphcons
    from graphcons.core.config import Config, Neo4jConfig

    imported = time.perf_counter()
    cfg = Config(neo4j=Neo4jConfig(uri=uri, password=password))
    try:
        g = Graphcons(cfg, warm=True)
    except TypeError:  # before issue 52: no warm-up at construction
        g = Graphcons(cfg)
    built = time.perf_counter()
    out = {"import_ms": 1000 * (imported - t0), "construct_ms": 1000 * (built - imported)}
    for n, (name, call) in enumerate((("retrieve", lambda q, ns: g.retrieve(q, k=10, namespace=ns, record=False)),
                                      ("context", lambda q, ns: g.context(q, 300, namespace=ns, record=False)))):
        for which, (text, ns) in (("first", texts[2 * n]), ("second", texts[2 * n + 1])):
            t = time.perf_counter()
            call(text, ns)
            out[f"{name}_{which}_ms"] = 1000 * (time.perf_counter() - t)
    g.close()
    print(json.dumps({k: round(v, 1) for k, v in out.items()}), flush=True)


class Side:
    """A worker process of one checkout (`code`: the directory its graphcons is imported from)."""

    def __init__(self, code: Path, uri: str, password: str | None):
        env = dict(os.environ, PYTHONPATH=str(code), NEO4J_PASSWORD=password or "")
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--worker", "--uri", uri],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=code)
        assert json.loads(self.proc.stdout.readline())["ready"]

    def ask(self, **req: Any) -> dict:
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


# --- floors: the bare statements beneath a retrieve --------------------------------------------

def floors(uri: str, password: str | None, qs: list[Query], n: int = 60) -> dict:
    """What the server alone takes for the parts no change of ours can remove, on the bench store
    with its first `n` queries (each asked twice, the first round untimed), next to the two list
    statements as a namespace retrieve sends them: a bare auto-commit round trip, each index's
    candidates alone (the vector index's also with the top k heads). The parameters are the ones
    recall/lists.py derives from the default config (k = hybrid_pool, candidates = max(index_pool,
    2k) for both lists). Server ms is the driver's result summary; wall ms is this process's, the
    records read as plain values."""
    import neo4j

    from bench import query as bench_query
    from graphcons.core.config import Config
    from graphcons.core.cypher import query
    from graphcons.core.memory import LIVE_STATUSES
    from graphcons.recall.lists import keyword_query, lucene_escape

    rc = Config().retrieval
    k = rc.hybrid_pool
    candidates = max(rc.index_pool, 2 * k)
    statements = {  # label -> statement
        "round trip (RETURN 1)": query("admin/ping"),
        f"vector index, {candidates} candidates": bench_query("floor_vector_index"),
        f"vector index, {candidates} candidates, top {k} heads": bench_query("floor_vector_heads"),
        "retrieval/vector as sent": query("retrieval/vector"),
        f"full-text index, {candidates} candidates": bench_query("floor_fulltext_index"),
        "retrieval/fulltext as sent": query("retrieval/fulltext"),
    }
    common = dict(exact_max=rc.exact_scope_max, large=True, keys=rc.keys, key_discount=rc.key_discount, index_min=rc.index_scope_min, index_share=rc.index_scope_share, candidates=candidates,
                  subject=None, live=list(LIVE_STATUSES), k=k, as_of=None)
    out: dict = {"queries": min(n, len(qs))}
    with neo4j.GraphDatabase.driver(uri, auth=("neo4j", password or "")) as driver:
        for label, text in statements.items():
            server, wall = [], []
            for rep in range(2):
                for q in qs[:n]:  # in its namespace scope
                    params = dict(common, embedding=q.vector, namespace=q.namespace,
                                  text=keyword_query(lucene_escape(q.text), q.namespace, None))
                    with driver.session() as s:
                        t = time.perf_counter()
                        result = s.run(text, **params)
                        list(result)
                        summary = result.consume()
                        if rep:
                            wall.append(1000 * (time.perf_counter() - t))
                            server.append(summary.result_available_after + summary.result_consumed_after)
            out[label] = {"server_p50": pct(server, 0.5), "wall_p50": pct(wall, 0.5), "wall_p95": pct(wall, 0.95)}
    return out


# --- figures ---------------------------------------------------------------------------------------

def pct(values: list[float], p: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(p * len(ordered)))], 2)


def breakdown(answers: list[dict]) -> dict | None:
    """Per stage (statement name, in first-seen order): round trips per call, server and client ms
    p50; per call: round trips p50/max and the Python time p50 (the call less its statements on
    the calling thread: a statement `alongside` overlaps them)."""
    if not answers or answers[0]["trips"] is None:
        return None
    stages: dict[str, dict[str, list[float]]] = {}
    trips, python = [], []
    for a in answers:
        seen: dict[str, int] = {}
        for name, server, wall, rt, beside in a["trips"]:
            s = stages.setdefault(name, {"round_trips": [], "server_ms": [], "wall_ms": []})
            s["server_ms"].append(server)
            s["wall_ms"].append(wall)
            seen[name] = seen.get(name, 0) + rt
        for name, s in stages.items():
            s["round_trips"].append(seen.get(name, 0))
        trips.append(sum(x[3] for x in a["trips"]))
        python.append(a["ms"] - sum(x[2] for x in a["trips"] if not x[4]))
    return {"round_trips_p50": pct(trips, 0.5), "round_trips_max": max(trips), "python_ms_p50": pct(python, 0.5),
            "stages": {name: {"round_trips_per_call": round(sum(s["round_trips"]) / len(answers), 2),
                              "server_ms_p50": pct(s["server_ms"], 0.5), "wall_ms_p50": pct(s["wall_ms"], 0.5)}
                       for name, s in stages.items()}}


def put(tree: dict, keys: tuple, value: Any) -> None:
    for k in keys[:-1]:
        tree = tree.setdefault(k, {})
    tree[keys[-1]] = value


# --- the store -------------------------------------------------------------------------------------

def build(g, n: int, queries: int, seed: int = 28) -> tuple[dict, list[Query]]:
    """bench/retrieval/latency.py's store of n memories and its queries."""
    import numpy as np

    from bench.merge import speed as mbench
    from bench.retrieval.latency import write_synthetic

    t0 = time.perf_counter()
    store = mbench.synthetic_store(n)
    written = write_synthetic(g, store)
    g.scan(namespace="default")  # the community prior reads what a scan stores
    rng = np.random.default_rng(seed)
    out = []
    dims = store["vecs"].shape[1]
    for i in rng.choice(n, size=queries + 4, replace=False):
        vec = store["vecs"][i] + rng.standard_normal(dims) * (0.6 / np.sqrt(dims))
        text = " ".join(store["contents"][i].split()[:6]) + f" q{i}"
        out.append(Query(text, (vec / np.linalg.norm(vec)).tolist(), f"subj-{int(store['subjects'][i]):05d}"))
    return {"n": n, **written, "seconds": round(time.perf_counter() - t0, 1)}, out


def build_real(g, queries: int, seed: int = 9) -> tuple[dict, list[Query]]:
    """The real store (issue 61): the four LoCoMo dev conversations as bench/retrieval/answers.py
    stores them (943 memories: each turn's observations, its date, its speaker; the co-access of the
    bench's first half of questions, split by its seed), wiped first; its queries are that bench's
    own asked questions (up to `queries`, in order), each with its conversation and its date, their
    vectors computed before any clock."""
    from bench.merge import speed as mbench
    from bench.retrieval.answers import admit_all, halves, load, record_coaccess

    t0 = time.perf_counter()
    mbench.wipe(g)
    g.init()
    memories, questions = load()
    used, asked = halves(questions, seed)
    sessions = record_coaccess(g, used, admit_all(g, memories))
    asked = asked[:queries]
    vectors = g.embedder.embed([q["question"] for q in asked])
    qs = [Query(q["question"], list(v), None, q["namespace"], q["date"].isoformat()) for q, v in zip(asked, vectors)]
    return {"n": len(memories), "real": "LoCoMo dev, 4 conversations", "coaccess_sessions": sessions,
            "seconds": round(time.perf_counter() - t0, 1)}, qs


def timed_phase(sides: dict[str, Side], qs: list[Query], warmup: int) -> dict:
    """Every call of every scope (a query without a subject: its namespace only), each side in turn on
    the same query (the order alternating)."""
    answers: dict[tuple[str, str, str], list[dict]] = {}
    names = list(sides)
    for n, q in enumerate(qs):
        for call in CALLS:
            for scope in SCOPES if q.subject else SCOPES[:1]:
                for side in (names if n % 2 == 0 else names[::-1]):
                    a = sides[side].ask(call=call, text=q.text, vector=q.vector, namespace=q.namespace, now=q.now,
                                        subject=q.subject if scope == "subject" else None)
                    if n >= warmup:
                        answers.setdefault((side, call, scope), []).append(a)
    return answers


def admissions(sides: dict[str, Side], n: int, dims: int, subjects: list[str], seed: int = 52) -> dict:
    import numpy as np

    rng = np.random.default_rng(seed)
    answers: dict[str, list[dict]] = {s: [] for s in sides}
    for i in range(n):
        for side in sides:
            vec = rng.standard_normal(dims)
            data = {"content": f"hot path admission {side} {i} " + " ".join(rng.choice(["alpha", "beta", "gamma",
                    "delta", "cache", "queue", "disk", "node"], 10)), "subject": subjects[i % len(subjects)],
                    "namespace": "default", "source": "bench-hot-paths"}
            answers[side].append(sides[side].ask(call="add", data=data, vector=(vec / np.linalg.norm(vec)).tolist()))
    return answers


def first_calls(uri: str, password: str | None, codes: dict[str, Path], texts: list[str], label: str,
                report: dict) -> None:
    for side, code in codes.items():  # a fresh process each
        env = dict(os.environ, PYTHONPATH=str(code), NEO4J_PASSWORD=password or "")
        got = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--first-call", "--uri", uri,
                              "--texts", json.dumps(texts)], env=env, cwd=code, capture_output=True, text=True,
                             check=True)
        (report["first_call_ms"] if side == "ours" else report["baseline"]["first_call_ms"])[label] = \
            json.loads(got.stdout.strip().splitlines()[-1])


def size_of(label: str) -> int:
    label = label.strip().lower()
    if label == REAL:
        return 0  # its size is the data's
    return int(float(label[:-1]) * (1000 if label.endswith("k") else 1_000_000)) if label[-1] in "km" else int(label)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--uri", default=os.environ.get("NEO4J_URI"))
    ap.add_argument("--sizes", default="10k,100k",
                    help="store sizes, comma-separated, each SIZE[:QUERIES][:before] (10k, 100k:100, 1m:100:before)")
    ap.add_argument("--queries", type=int, default=200, help="timed queries per size and phase")
    ap.add_argument("--warmup", type=int, default=10, help="queries asked first and not timed")
    ap.add_argument("--admissions", type=int, default=300, help="timed admissions per size and side")
    ap.add_argument("--against", help="the baseline commit (a git worktree), timed in turn query by query")
    ap.add_argument("--no-after", dest="after", action="store_false", help="skip the consolidation pass")
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--first-call", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--texts", help=argparse.SUPPRESS)
    args = ap.parse_args()
    password = os.environ.get("NEO4J_PASSWORD") or None
    if args.worker:
        return worker(args.uri, password)
    if args.first_call:
        return first_call(args.uri, password, json.loads(args.texts))
    if not args.uri:
        ap.error("--uri (or $NEO4J_URI) is needed: the database is wiped")
    sys.path.insert(0, str(ROOT))
    from bench import command
    from bench.retrieval.answers import consolidate_all
    from graphcons.api import Graphcons
    from graphcons.core.config import Config, Neo4jConfig
    from graphcons.core.embedders import make_embedder

    cfg = Config(neo4j=Neo4jConfig(uri=args.uri, password=password))
    cfg.consolidation.enabled, cfg.consolidation.dry_run, cfg.consolidation.daily_cap = True, False, 10_000
    report: dict = {"benchmark": "hot_paths", "command": command("bench.retrieval.hot_paths"),
                    "against": args.against, "cores": os.cpu_count(),
        "p95_ms": {}, "p50_ms": {}, "breakdown": {}, "baseline": {"p95_ms": {}, "p50_ms": {}, "admission_ms": {},
                                                                  "first_call_ms": {}},
        "first_call_ms": {}, "admission_ms": {}, "stores": {}, "consolidation": {}, "load": {}}
    with tempfile.TemporaryDirectory() as tmp:
        codes = {"ours": ROOT}
        if args.against:
            base = Path(tmp) / "base"
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(base), args.against],
                           check=True)
            codes["baseline"] = base
        try:
            with Graphcons(cfg, embedder=make_embedder(cfg.embedding)) as g:
                for spec in args.sizes.split(","):
                    label, *rest = spec.strip().split(":")
                    queries = next((int(x) for x in rest if x.isdigit()), args.queries)
                    phases = ("before",) if "before" in rest or not args.after else ("before", "after")
                    one_size(g, cfg, label, size_of(label), queries, phases, args, codes, report, consolidate_all,
                             password)
        finally:
            if args.against:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(codes["baseline"])],
                               check=False)
    if "100k" in report["admission_ms"]:
        report["admission_p95_ms_100k"] = report["admission_ms"]["100k"]["p95"]
    save(report, args.out, complete=True)
    print(f"saved {args.out}")


def save(report: dict, out: Path, *, complete: bool = False) -> None:
    """The report so far: written after every phase, so a run stopped midway (a 1M store's
    admissions stalled for minutes behind Lucene's merges) keeps what it measured."""
    out.write_text(json.dumps({**report, "complete": complete}, indent=2) + "\n")


def one_size(g, cfg, label: str, n: int, queries: int, phases: tuple[str, ...], args, codes: dict[str, Path],
             report: dict, consolidate_all, password: str | None) -> None:
    report["load"][label] = {"before": [round(x, 2) for x in os.getloadavg()]}
    report["stores"][label], qs = (build_real(g, queries + args.warmup + 4) if label == REAL
                                   else build(g, n, queries + args.warmup))
    report.setdefault("queries", {})[label] = {"timed": len(qs) - 4 - args.warmup, "phases": list(phases)}
    texts = [[q.text, q.namespace] for q in qs[-4:]]
    qs = qs[:-4]
    sides = {side: Side(code, args.uri, password) for side, code in codes.items()}
    try:
        for phase in phases:
            if phase == "after":
                report["consolidation"][label] = consolidate_all(g, argparse.Namespace(llm=None))
            answers = timed_phase(sides, qs, args.warmup)
            put(report.setdefault("floors", {}), (label, phase), floors(args.uri, password, qs))
            print(label, phase, "floors", report["floors"][label][phase], flush=True)
            if phase == "before":  # the server has run every statement: what a new app process meets
                first_calls(args.uri, password, codes, texts, label, report)
            for (side, call, scope), got in answers.items():
                ms = [a["ms"] for a in got]
                into = report if side == "ours" else report["baseline"]
                put(into["p95_ms"], (label, call, scope, phase), pct(ms, 0.95))
                put(into["p50_ms"], (label, call, scope, phase), pct(ms, 0.5))
                if side == "ours":
                    put(report["breakdown"], (label, call, scope, phase), breakdown(got))
                print(label, phase, side, call, scope, "p50", pct(ms, 0.5), "p95", pct(ms, 0.95), flush=True)
            save(report, args.out)
        subjects = sorted({q.subject for q in qs if q.subject})
        for side, got in (admissions(sides, args.admissions, len(qs[0].vector), subjects).items()
                          if subjects else ()):  # the real store: retrieval only
            ms = [a["ms"] for a in got]
            figures = {"p50": pct(ms, 0.5), "p95": pct(ms, 0.95), "n": len(ms)}
            if side == "ours":
                report["admission_ms"][label] = {**figures, "breakdown": breakdown(got)}
            else:
                report["baseline"]["admission_ms"][label] = figures
            print(label, "admission", side, figures, flush=True)
    finally:
        for s in sides.values():
            s.close()
    report["load"][label]["after"] = [round(x, 2) for x in os.getloadavg()]


if __name__ == "__main__":
    main()
