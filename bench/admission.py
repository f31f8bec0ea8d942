"""Admission speed with 10k and 100k memories already stored.

Measures admissions per second and p50/p95 latency of `add`, excluding the embedding
(vectors computed beforehand) and including it (the offline MiniLM embedder), on a
throwaway Neo4j (bench/server.py). The stored memories are written in batches with
embeddings derived from real sentences (STS-B) plus noise, so the vector index has a
realistic neighbourhood structure without embedding 100k texts.

    .venv/bin/python bench/admission.py [--sizes 10000 100000] [--n 300]

Prints a table and saves bench/results/admission.json.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import plots, query  # noqa: E402
from bench.server import bench_server, stop_bench_server  # noqa: E402
from graphcons.store.admission import admit, node_props, version_props  # noqa: E402
from graphcons.api import Graphcons  # noqa: E402
from graphcons.core.embedders.minilm import MiniLMEmbedder  # noqa: E402
from graphcons.core.memory import content_hash, parse_input  # noqa: E402

DATA = Path(os.environ.get("GRAPHCONS_DATA", Path(__file__).resolve().parent.parent.parent / "shared" / "data")) / "stsb-train.tsv"
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
    for lo in range(start, stop, batch):
        rows = []
        for i in range(lo, min(stop, lo + batch)):
            j = i % len(base_texts)
            vec = base_vecs[j] + rng.normal(0, 0.35, base_vecs.shape[1]) / np.sqrt(base_vecs.shape[1])
            vec /= np.linalg.norm(vec)
            text = f"{base_texts[j]} (record {i})"
            mem = parse_input({"content": text, "subject": f"s{i % 500}", "source": f"src{i % 7}",
                               "id": f"pre-{i}"}, max_title=300, max_content=20000)
            props = node_props(mem, content_hash(text), vec.tolist())
            rows.append({"props": props, "version": version_props(props, props["admitted_at"])})
        g.db.run_text(query("preload"), rows=rows)
        print(f"  stored {min(stop, lo + batch):>7,}", end="\r", flush=True)
    g.db.run_text("CALL db.awaitIndexes(3600)")
    print()


def timed(fn, items) -> list[float]:
    lat = []
    for item in items:
        t = time.perf_counter()
        fn(item)
        lat.append((time.perf_counter() - t) * 1000)
    return lat


def summary(lat: list[float]) -> dict:
    q = statistics.quantiles(lat, n=100)
    return {"n": len(lat), "per_s": round(1000 * len(lat) / sum(lat), 1),
            "p50_ms": round(q[49], 2), "p95_ms": round(q[94], 2), "mean_ms": round(statistics.fmean(lat), 2)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--n", type=int, default=300, help="admissions timed per size and mode")
    args = ap.parse_args()
    rng = np.random.default_rng(7)
    texts = sentences()
    base_texts, probe_texts = texts[:4000], texts[4000:]
    emb = MiniLMEmbedder()
    t = time.perf_counter()
    base_vecs = np.array(emb.embed(base_texts))
    embed_rate = len(base_texts) / (time.perf_counter() - t)
    cfg = bench_server()
    results = {"machine": {"cores": 2, "python": platform.python_version()},
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
                batch_a = [next(probes) for _ in range(args.n)]
                batch_b = [next(probes) for _ in range(args.n)]
                vecs = emb.embed([f"{t}" for t in batch_a])
                pairs = list(zip(batch_a, vecs))
                lat_ex = timed(lambda p: admit(g.db, g.config, emb, {"content": p[0], "subject": "bench"},
                                               embedding=p[1]), pairs)
                lat_in = timed(lambda s: g.add({"content": s, "subject": "bench"}), batch_b)
                stored += 2 * args.n
                results["sizes"][str(size)] = {"excluding_embedding": summary(lat_ex),
                                               "including_embedding": summary(lat_in)}
                print(f"{size:>8,} stored | excl. embedding {summary(lat_ex)} | incl. embedding {summary(lat_in)}")
    finally:
        stop_bench_server()
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    plots.render(RESULTS)  # charts next to the figures
    print(f"saved {RESULTS}")


if __name__ == "__main__":
    main()
