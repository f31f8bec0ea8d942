"""Retrieval latency with a large store (issue 28): p50/p95 of `retrieve` excluding the query
embedding, per mode (vector, keyword, the default: hybrid + graph step + insight grouping), and
of `context(q, 300)` with the default (issue 39), and of the default before issue 39
(`default_issue28`: no community prior, insights grouped) timed in turn with it, for
a query over the whole namespace (the vector-index path) and one scoped to a subject (the
exact path), with and without the graph step (graph_weight 0 = the fused ranking alone).

The store is bench/store/scale.py's synthetic one (bench/merge/speed.py's `synthetic_store`: 20 memories
per subject, word-salad texts, clustered unit vectors, 5% near-duplicates) with its SIMILAR
(admission's rule) and CO_ACCESSED edges, written in bulk. Queries are stored memories' texts
with their vectors plus noise, so keyword and vector both find something; the vectors are
handed to retrieve up front (the embedding is not timed).

    python -m bench.retrieval.latency --uri bolt://127.0.0.1:7703 [--n 100000] [--queries 200]

--uri (or $NEO4J_URI) is WIPED first. Saves bench/retrieval/results/retrieval_scale.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench import command, query
from bench.merge import speed as mbench  # noqa: E402
from bench.retrieval.answers import configured  # noqa: E402
from bench.store.scale import coaccess_edges, similar_edges, write_edges  # noqa: E402
from graphcons.api import Graphcons  # noqa: E402
from graphcons.core.config import Config, Neo4jConfig  # noqa: E402
from graphcons.core.embedders import make_embedder  # noqa: E402
from graphcons.core.time import utcnow  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "retrieval_scale.json"


class Vectors:
    """The bench's embedder: every query's vector is known, so retrieve spends nothing on embedding."""

    def __init__(self, inner, known: dict[str, list[float]]):
        self.inner, self.known = inner, known

    def embed_one(self, text: str) -> list[float]:
        return self.known[text]

    def __getattr__(self, name):
        return getattr(self.inner, name)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(p * len(ordered)))], 2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--uri", default=os.environ.get("NEO4J_URI"), required=not os.environ.get("NEO4J_URI"))
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--ppr", type=int, default=10, help="queries timed through per-query projection + personalised PageRank")
    ap.add_argument("--keep-store", action="store_true", help="reuse the store when it already holds --n memories")
    args = ap.parse_args()
    cfg = Config(neo4j=Neo4jConfig(uri=args.uri, password=os.environ.get("NEO4J_PASSWORD") or None))
    out: dict = {"benchmark": "retrieval_scale", "command": command("bench.retrieval.latency"),
                 "at": utcnow().isoformat(timespec="seconds"), "n": args.n, "cores": os.cpu_count(),
                 "uptime_before": subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()}
    store = mbench.synthetic_store(args.n)
    rng = np.random.default_rng(28)
    picks = rng.choice(args.n, size=args.queries, replace=False)
    known, queries = {}, []
    for i in picks:
        vec = store["vecs"][i] + rng.standard_normal(store["vecs"].shape[1]) * (0.6 / np.sqrt(store["vecs"].shape[1]))
        text = " ".join(store["contents"][i].split()[:6]) + f" q{i}"
        known[text] = (vec / np.linalg.norm(vec)).tolist()
        queries.append((text, f"subj-{int(store['subjects'][i]):05d}"))
    with Graphcons(cfg, embedder=Vectors(make_embedder(cfg.embedding), known)) as g:
        stored = g.db.run_text("MATCH (m:Memory) RETURN count(m) AS n")[0]["n"]
        if not (args.keep_store and stored == args.n):
            out["load"] = write_synthetic(g, store)
        g.init()
        rc = g.config.retrieval
        out["settings"] = rc.model_dump()
        communities = g.db.run_text("MATCH (m:Memory) WHERE m.community IS NOT NULL RETURN count(m) AS n")[0]["n"]
        if rc.community_weight > 0 and not communities:  # the prior reads what a scan stores
            t0 = time.perf_counter()
            g.scan(namespace="default")
            out["scan_for_communities_seconds"] = round(time.perf_counter() - t0, 1)
        out["memories_in_a_community"] = g.db.run_text(
            "MATCH (m:Memory) WHERE m.community IS NOT NULL RETURN count(m) AS n")[0]["n"]
        # Every variant is timed on the same query in turn (the order rotating), so a noisy host
        # slows them alike: "default_issue28" is the default before issue 39 (no community prior,
        # insights grouped), the baseline issue 39's latency target names.
        variants = {"vector": ("retrieve", "vector", {}), "keyword": ("retrieve", "keyword", {}),
                    "default_without_graph": ("retrieve", None, {"graph_weight": 0.0}),
                    "default": ("retrieve", None, {}),
                    "default_issue28": ("retrieve", None, {"community_weight": 0.0, "insights": "group"}),
                    "context300": ("context", None, {}),
                    "context300_without_community": ("context", None, {"community_weight": 0.0})}

        def call(kind: str, mode, settings: dict, text: str, subject) -> float:
            with configured(g, settings):
                t = time.perf_counter()
                if kind == "context":
                    g.context(text, 300, namespace="default", subject=subject, record=False)
                else:
                    g.retrieve(text, k=10, namespace="default", subject=subject, mode=mode, record=False)
                return 1000 * (time.perf_counter() - t)

        results = {}
        names = list(variants)
        for scope in ("namespace", "subject"):
            times: dict[str, list[float]] = {name: [] for name in names}
            for n, (text, subject) in enumerate(queries[:20] + queries):  # the first 20: warm-up, not timed
                for name in names[n % len(names):] + names[:n % len(names)]:
                    ms = call(*variants[name], text, subject if scope == "subject" else None)
                    if n >= 20:
                        times[name].append(ms)
            for name in names:
                results[f"{name}/{scope}"] = {"p50": percentile(times[name], 0.5),
                                              "p95": percentile(times[name], 0.95), "n": len(times[name])}
                print(name, scope, results[f"{name}/{scope}"], flush=True)
        out["latency_ms_excluding_embedding"] = results
        if args.ppr:  # the alternative to the one-statement graph step: project the scope, run PPR, drop
            times = []
            for n, (text, _) in enumerate(queries[:args.ppr]):
                seeds = [h.memory.id for h in g.retrieve(text, k=10, namespace="default", mode="vector", record=False)]
                t = time.perf_counter()
                g.db.run_text(query("retrieval_ppr_project"), name=f"ppr-{n}", namespace="default")
                g.db.run_text(query("retrieval_ppr_stream"), name=f"ppr-{n}", seeds=seeds)
                g.db.run_text("CALL gds.graph.drop($name) YIELD graphName RETURN graphName", name=f"ppr-{n}")
                times.append(1000 * (time.perf_counter() - t))
                print("ppr", n, round(times[-1], 1), flush=True)
            out["ppr_per_query_ms"] = {"p50": percentile(times, 0.5), "max": round(max(times), 1), "n": len(times),
                                       "what": "project the namespace, gds.pageRank.stream with sourceNodes, drop"}
    out["uptime_after"] = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    RESULTS.write_text(json.dumps(out, indent=2) + "\n")
    print(f"saved {RESULTS}")




def write_synthetic(g, store: dict) -> dict:
    """Write the synthetic store (wiping first) with its SIMILAR and CO_ACCESSED edges and the vector
    index; what it took. bench/retrieval/hot_paths.py builds the same store."""
    t0 = time.perf_counter()
    mbench.wipe(g)
    mbench.write_store(g, store)
    eid = {int(r["id"][2:]): r["eid"] for r in g.db.run_text(query("scale_element_ids"))}
    sim = similar_edges(store, g.config.admission.similar_k, g.config.consolidation.similarity_floor)
    co = coaccess_edges(store)
    write_edges(g, "clusters_create_similar_by_eid", sim, eid)
    write_edges(g, "clusters_create_coaccess_by_eid", co, eid)
    mbench.build_index(g)
    return {"seconds": round(time.perf_counter() - t0, 1), "similar_edges": len(sim), "coaccess_edges": len(co)}

if __name__ == "__main__":
    main()
