"""Admission speed with 10k and 100k (or 1M) memories already stored (issue 15).

Measures p50/p95 latency of single admission, excluding the embedding (vectors computed
beforehand) and including it (the offline MiniLM embedder), and the rate of batch admission
(`Graphcons.add_many`, batches of --batch, embedding included: `memories_per_s` with every
memory of a batch in its own subject, the worst case; `grouped_memories_per_s` with a batch in
8 subjects, as an agent's export comes; `import_memories_per_s` and `import_grouped_memories_per_s`
through `graphcons import`, which embeds the next batch while one is written), on a throwaway Neo4j
(bench/server.py). The stored memories are written in batches with embeddings derived from
real sentences (STS-B) plus noise, so the vector index has a realistic neighbourhood
structure without embedding 100k texts; every timed admission goes through the real path.

Side by side in the same run (the machine is shared, so only same-run ratios mean much):
`legacy`, the pre-issue-15 path (find_duplicate, existing_ids, then a transaction of
create, similar/exact, similar/link, mark_dirty, audit: one round trip each) and the old
importer (one admission per line); the new figures are `excluding_embedding` (the steady
state: a second pass of --n admissions), `excluding_embedding_after_start` (the first pass, 20
warm-up admissions after the server started), `including_embedding` and `batch`. `profile` is
the time per round trip of the new path, `index_probe_ms` the latency of a fixed vector-index
query (what `graphcons health` reports).

    python -m bench.store.admission [--sizes 10000 100000] [--n 300] [--batch 256 --batches 4]
    python -m bench.store.admission --sizes 1000000 --out bench/store/results/admission-1m.json   # 1M stored

Prints a table and saves bench/store/results/admission.json (the `baseline` entry keeps the figures
measured before issue 15).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import resource
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench import plots, query  # noqa: E402
from bench.server import bench_server, stop_bench_server  # noqa: E402
from graphcons.core import audit  # noqa: E402
from graphcons.core.cypher import statements  # noqa: E402
from graphcons.core.db import Database  # noqa: E402
from graphcons.maintenance import vector_index  # noqa: E402
from graphcons.store import dirty, neighbours  # noqa: E402
from graphcons.store.admission import admit, node_props, version_props  # noqa: E402
from graphcons.api import Graphcons  # noqa: E402
from graphcons.core.embedders.minilm import MiniLMEmbedder  # noqa: E402
from graphcons.core.memory import content_hash, embedded_text, parse_input  # noqa: E402

DATA = Path(os.environ.get("GRAPHCONS_DATA", Path(__file__).resolve().parents[2].parent / "shared" / "data")) / "stsb-train.tsv"
RESULTS = Path(__file__).resolve().parent / "results" / "admission.json"


def sentences() -> list[str]:
    out, seen = [], set()
    with open(DATA, newline="", encoding="utf-8") as f:
        for row in csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            for s in row[5:7]:
                if s and s not in seen:
                    seen.add(s)
                    out.append(s)
    return out


def preload(g: Graphcons, base_vecs: np.ndarray, base_texts: list[str], start: int, stop: int,
            rng: np.random.Generator, batch: int = 2000) -> None:
    """Synthetic stored memories (not timed). The vector index is dropped while they are
    written and created again after (schema/03_vector), which is much faster than
    inserting them one transaction at a time; both timed paths then meet the same index."""
    g.db.run("health/vector_index_drop")
    for lo in range(start, stop, batch):
        rows = []
        for i in range(lo, min(stop, lo + batch)):
            j = i % len(base_texts)
            vec = base_vecs[j] + rng.normal(0, 0.35, base_vecs.shape[1]) / np.sqrt(base_vecs.shape[1])
            vec /= np.linalg.norm(vec)
            text = f"{base_texts[j]} (record {i})"
            mem = parse_input({"content": text, "subject": f"s{i % 500}", "source": f"src{i % 7}",
                               "id": f"pre-{i}"}, max_title=300, max_content=20000)
            props = node_props(mem, content_hash(text), vec.tolist(), None, g.config.weights)
            rows.append({"props": props, "version": version_props(props, props["admitted_at"])})
        g.db.run_text(query("preload"), rows=rows)
        print(f"  stored {min(stop, lo + batch):>7,}", end="\r", flush=True)
    for stmt in statements("schema/03_vector"):
        g.db.run_text(stmt, dimensions=int(base_vecs.shape[1]))
    g.db.run_text("CALL db.awaitIndexes(3600)")
    print()


def legacy_admit(g: Graphcons, data: dict, vec: list[float]) -> None:
    """Admission as it was before issue 15 (same queries, one round trip each): the baseline."""
    mem = parse_input(data, max_title=300, max_content=20000)
    chash = content_hash(mem.content)
    if g.db.run("memory/find_duplicate", namespace=mem.namespace, subject=mem.subject, content_hash=chash):
        raise AssertionError("bench texts are unique")
    if mem.id is not None:
        g.db.run("memory/existing_ids", ids=[mem.id])
    props = node_props(mem, chash, vec, None, g.config.weights)
    with g.db.transaction() as tx:
        similar = neighbours.create(tx, g.config, props, version_props(props, props["admitted_at"]))
        dirty.mark(tx, mem.namespace, mem.subject, props["admitted_at"])
        audit.record(tx, "add", [props["id"]], at=props["admitted_at"], source=mem.source, origin=mem.origin,
                     namespace=mem.namespace, subject=mem.subject, similar=len(similar), links=0)


def excluding_embedding(g: Graphcons, emb, n: int, probes, subj, legacy: bool = False
                        ) -> tuple[list[float], list[float], "Profile"]:
    """One pass of n single admissions with precomputed vectors (the i-th into subject subj(i)), the
    new path and, with `legacy`, the legacy one interleaved so that both meet the same load."""
    new_a = [next(probes) for _ in range(n)]
    old_a = [next(probes) for _ in range(n)] if legacy else []
    vecs = emb.embed(new_a + old_a)
    lat_new, lat_old = [], []
    with Profile() as prof:
        for i in range(n):
            lat_new += timed(lambda p: admit(g.db, g.config, emb, {"content": p[0], "subject": subj(i)},
                                             embedding=p[1]), [(new_a[i], vecs[i])])
            if legacy:
                lat_old += timed(lambda p: legacy_admit(g, {"content": p[0], "subject": subj(i)}, p[1]),
                                 [(old_a[i], vecs[n + i])])
    return lat_new, lat_old, prof


def timed(fn, items) -> list[float]:
    lat = []
    for item in items:
        t = time.perf_counter()
        fn(item)
        lat.append((time.perf_counter() - t) * 1000)
    return lat


def import_rate(g: Graphcons, items: list[dict]) -> float:
    """Memories per second of `graphcons import` (Graphcons.import_jsonl) over `items`, which
    embeds the next batch while the current one is written."""
    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"graphcons-bench-import-{os.getpid()}.jsonl"
    path.write_text("".join(json.dumps(it) + "\n" for it in items), encoding="utf-8")
    try:
        t = time.perf_counter()
        report = g.import_jsonl(path)
        secs = time.perf_counter() - t
    finally:
        path.unlink()
    assert report.admitted == len(items) and not report.errors, report
    return round(len(items) / secs, 1)


def add_many_seconds(g: Graphcons, probes, args, subject) -> float:
    """Seconds for --batches add_many calls of --batch probes; item j of batch k in subject(k, j)."""
    batches = [[{"content": next(probes), "subject": subject(k, j), "source": "import"} for j in range(args.batch)]
               for k in range(args.batches)]
    t = time.perf_counter()
    for b in batches:
        g.add_many(b)
    return time.perf_counter() - t


def summary(lat: list[float]) -> dict:
    q = statistics.quantiles(lat, n=100)
    return {"n": len(lat), "per_s": round(1000 * len(lat) / sum(lat), 1),
            "p50_ms": round(q[49], 2), "p95_ms": round(q[94], 2), "mean_ms": round(statistics.fmean(lat), 2)}


class Profile:
    """Time per named query (db.run) and per write transaction (db.write) of the new path."""

    def __init__(self):
        self.times: dict[str, list[float]] = {}
        self._run, self._write = Database.run, Database.write

    def __enter__(self):
        prof = self

        def run(db, name, /, **params):
            t = time.perf_counter()
            try:
                return prof._run(db, name, **params)
            finally:
                prof.times.setdefault(f"read {name}", []).append((time.perf_counter() - t) * 1000)

        def write(db, work):
            t = time.perf_counter()
            try:
                return prof._write(db, work)
            finally:
                prof.times.setdefault("write transaction (memory/admit: checks, writes, audit; commit)", []).append(
                    (time.perf_counter() - t) * 1000)

        Database.run, Database.write = run, write
        return self

    def __exit__(self, *exc):
        Database.run, Database.write = self._run, self._write

    def summary(self) -> dict:
        return {k: {"p50_ms": round(statistics.median(v), 2), "mean_ms": round(statistics.fmean(v), 2)}
                for k, v in self.times.items()}


def commit_costs(db: Database, dims: int, tag: str, repeat: int = 30) -> dict:
    """Median commit time of one-node write transactions by what the node feeds: no index, the
    fulltext index (content), the vector index (embedding). Shows where admission's commit goes.
    Bench only: the nodes are throwaway :Memory rows in namespace 'bench-commit' of the bench store."""
    rng = np.random.default_rng(11)
    cases = {"no_index": "CREATE (:BenchCommit {x: 1})",
             "fulltext": "CREATE (:Memory {id: $id, namespace: 'bench-commit', subject: 'c', content: 'text to index here'})",
             "vector": "CREATE (:Memory {id: $id, namespace: 'bench-commit', subject: 'c', embedding: $v})",
             # a fulltext index updated after commit: memory_text is one since 2026-12-02 (search awaits its refresh)
             "fulltext_eventually_consistent": "CREATE (:BenchCommitText {content: 'text to index here'})"}
    with db.driver.session(database=db.cfg.database) as s:
        s.run("CREATE FULLTEXT INDEX bench_commit_text IF NOT EXISTS FOR (n:BenchCommitText) ON EACH [n.content] "
              "OPTIONS {indexConfig: {`fulltext.eventually_consistent`: true}}").consume()
        s.run("CALL db.awaitIndexes(300)").consume()
    out = {}
    for name, text in cases.items():
        times = []
        for j in range(repeat):
            v = rng.normal(size=dims)
            with db.driver.session(database=db.cfg.database) as s:
                tx = s.begin_transaction()
                tx.run(text, id=f"commit-{name}-{dims}-{tag}-{j}", v=(v / np.linalg.norm(v)).tolist()).consume()
                t = time.perf_counter()
                tx.commit()
                times.append((time.perf_counter() - t) * 1000)
        out[name] = round(statistics.median(times), 2)
    return out


def neo4j_peak_rss_mb(home: Path) -> float | None:
    """VmHWM of the benchmark server's Java process (its pid file)."""
    try:
        pid = (home / "neo4j.pid").read_text().strip()
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--n", type=int, default=300, help="admissions timed per size and mode")
    ap.add_argument("--batch", type=int, default=256, help="batch size of add_many")
    ap.add_argument("--batches", type=int, default=4, help="add_many batches timed per size")
    ap.add_argument("--warmup", type=int, default=20, help="untimed admissions per path before timing")
    ap.add_argument("--no-legacy", action="store_true", help="skip the pre-issue-15 path (faster at 1M)")
    ap.add_argument("--subjects", type=int, default=500,
                    help="timed admissions go to the preload's subjects s0..s{N-1} (scope = stored / 500 memories); "
                         "0: all to one subject 'bench', as the baseline did (its scope grows with --n)")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    rng = np.random.default_rng(7)
    texts = sentences()
    base_texts, probe_texts = texts[:4000], texts[4000:]
    need = len(args.sizes) * (6 * args.n + (4 * args.batches + 1) * args.batch + 2 * args.warmup + 8)
    if need > len(probe_texts):
        raise SystemExit(f"{need} probe sentences needed, {len(probe_texts)} available: lower --n or --batches")
    emb = MiniLMEmbedder()
    emb.embed(base_texts[:64])  # warm
    t = time.perf_counter()
    base_vecs = np.array(emb.embed(base_texts))
    embed_rate = len(base_texts) / (time.perf_counter() - t)
    old = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    baseline = old.get("baseline") or {k: old[k] for k in ("machine", "embedder_sentences_per_s_batch32", "sizes") if k in old}
    from bench.server import HOME
    cfg = bench_server(heap="3g", pagecache="1g")
    results = {"benchmark": "admission",
               "command": " ".join([f"{k}={os.environ[k]}" for k in ("GRAPHCONS_BENCH_BOLT_PORT", "GRAPHCONS_BENCH_HTTP_PORT")
                                    if k in os.environ] + ["python -m bench.store.admission"] + sys.argv[1:]),
               "machine": {"cores": os.cpu_count(), "python": platform.python_version()},
               "baseline": baseline,
               "baseline_note": "measured before issue 15 (load ~3), all timed admissions on one subject 'bench'; "
                                "`legacy` in each size is that same code path re-measured in this run, side by side",
               "embedder_sentences_per_s_batch32": round(embed_rate, 1), "sizes": {}}
    stored = 0
    probes = iter(probe_texts)
    try:
        with Graphcons(cfg, embedder=emb) as g:
            g.init()
            for size in sorted(args.sizes):
                print(f"preloading to {size:,} memories")
                preload(g, base_vecs, base_texts, stored, size, rng)
                stored = size
                for j in range(args.warmup):  # untimed: query plans compiled, JIT warm, for both paths
                    w = next(probes)
                    admit(g.db, g.config, emb, {"content": w, "subject": "warmup"}, embedding=emb.embed_one(w))
                    if not args.no_legacy:
                        w = next(probes)
                        legacy_admit(g, {"content": w, "subject": "warmup"}, emb.embed_one(w))
                g.add_many([{"content": next(probes), "subject": "warmup"} for _ in range(8)])
                entry: dict = {"load_before": load(), "index_probe_ms": vector_index.probe(g.db, repeat=20)}
                legacy: dict = {}

                def subj(i: int) -> str:
                    return f"s{(7 * i) % args.subjects}" if args.subjects else "bench"

                entry["scope"] = "bench" if not args.subjects else f"s0..s{args.subjects - 1} (~{size // 500:,} memories each)"
                # Two passes: the first admissions after the server started (JIT, caches and the fresh
                # vector index still settling: its p95 is ~2x the next pass's), then the same again
                # right after: the steady state a running service sees, reported as excluding_embedding.
                for label in ("excluding_embedding_after_start", "excluding_embedding"):
                    lat_new, lat_old, prof = excluding_embedding(g, emb, args.n, probes, subj, legacy=not args.no_legacy)
                    entry[label] = summary(lat_new)
                    if lat_old:
                        legacy[label] = summary(lat_old)
                entry["profile_excluding_embedding"] = prof.summary()
                new_b = [next(probes) for _ in range(args.n)]
                old_b = [next(probes) for _ in range(args.n)]
                lat_new, lat_old_in = [], []
                for i in range(args.n):
                    lat_new += timed(lambda s: g.add({"content": s, "subject": subj(i)}), [new_b[i]])
                    if not args.no_legacy:
                        lat_old_in += timed(lambda s: legacy_admit(g, {"content": s, "subject": subj(i)},
                                                                   emb.embed_one(embedded_text(None, s))), [old_b[i]])
                entry["including_embedding"] = summary(lat_new)
                secs = add_many_seconds(g, probes, args, lambda k, j: f"s{j % 500}")  # one memory per subject
                secs_grouped = add_many_seconds(g, probes, args, lambda k, j: f"s{400 + 8 * k + j % 8}")  # 8 a batch
                entry["batch"] = {"batch_size": args.batch, "batches": args.batches,
                                  "memories_per_s": round(args.batch * args.batches / secs, 1),
                                  "seconds_per_batch": round(secs / args.batches, 3),
                                  "grouped_memories_per_s": round(args.batch * args.batches / secs_grouped, 1),
                                  "import_memories_per_s": import_rate(g, [
                                      {"content": next(probes), "subject": f"s{j % 500}", "source": "import"}
                                      for j in range(args.batch * args.batches)]),
                                  "import_grouped_memories_per_s": import_rate(g, [
                                      {"content": next(probes), "subject": f"s{440 + 8 * (j // args.batch) + j % 8}",
                                       "source": "import"} for j in range(args.batch * args.batches)])}
                if not args.no_legacy:
                    one = [{"content": next(probes), "subject": f"s{j % 500}", "source": "import"} for j in range(args.batch)]
                    t = time.perf_counter()
                    for it, v in zip(one, emb.embed([it["content"] for it in one])):  # the old importer
                        legacy_admit(g, it, v)
                    entry["legacy"] = {**legacy, "including_embedding": summary(lat_old_in),
                                       "import_memories_per_s": round(args.batch / (time.perf_counter() - t), 1)}
                stored = g.db.run_text("MATCH (m:Memory) RETURN count(m) AS c")[0]["c"]
                entry["commit_ms_by_index"] = commit_costs(g.db, int(base_vecs.shape[1]), str(size))
                entry["load_after"] = load()
                results["sizes"][str(size)] = entry
                print(f"{size:>9,} stored | load {entry['load_before']} | index probe {entry['index_probe_ms']} ms")
                print(f"    new    excl. embedding {entry['excluding_embedding']} (after start: "
                      f"{entry['excluding_embedding_after_start']})")
                print(f"    new    incl. embedding {entry['including_embedding']}")
                print(f"    new    batch           {entry['batch']}")
                if "legacy" in entry:
                    for k, v in entry["legacy"].items():
                        print(f"    legacy {k} {v}")
                print(f"    profile {entry['profile_excluding_embedding']}")
                print(f"    commit by index {entry['commit_ms_by_index']}")
                results["peak_rss_mb"] = {"neo4j": neo4j_peak_rss_mb(HOME),
                                          "python": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}
                save(args.out, results)  # after each size: a long run keeps what it measured
    finally:
        stop_bench_server()
    plots.render(args.out)  # charts next to the figures
    print(f"saved {args.out}")


def save(out: Path, results: dict) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
