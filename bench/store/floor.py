"""Calibrate the similarity floor of the configured embedder (issue 12).

    python -m bench.store.floor            # -> bench/store/results/floor.json

The floor decides which neighbours become SIMILAR edges of the fused graph, i.e. which
memories may cluster: pairs on the same topic whose details differ must pass it. STS-B
train pairs scored >= 3 ("roughly equivalent, some important information differs") are
that label; the floor is the cosine that best separates them from the rest (highest F1).
MRPC train (paraphrase or not) and STS-B >= 4 ("mostly equivalent") are reported beside
it. Put the result on the embedder class (`sim_floor`) or in [consolidation] sim_floor.
Data: ../shared/data (never copied into the project).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
from pathlib import Path

import numpy as np

from graphcons.core.config import load_config
from graphcons.core.embedders import embedder_identity, make_embedder

REPO = Path(__file__).resolve().parents[2]


def best_f1(labels: np.ndarray, cosines: np.ndarray) -> dict:
    best = {"f1": -1.0}
    for t in np.round(np.arange(0.30, 0.96, 0.01), 2):
        pred = cosines >= t
        p = float(labels[pred].mean()) if pred.any() else 0.0
        r = float(pred[labels].mean())
        f = 2 * p * r / (p + r) if p + r else 0.0
        if f > best["f1"]:
            best = {"floor": float(t), "f1": round(f, 4), "precision": round(p, 4), "recall": round(r, 4)}
    return best


def cosines(embedder, pairs: list[tuple[str, str]]) -> np.ndarray:
    a = np.array(embedder.embed([x for x, _ in pairs]))
    b = np.array(embedder.embed([y for _, y in pairs]))
    return (a * b).sum(axis=1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(REPO.parent / "shared" / "data"))
    ap.add_argument("--out", default=str(REPO / "bench" / "store" / "results" / "floor.json"))
    args = ap.parse_args()
    data = Path(args.data)
    cfg = load_config()
    embedder = make_embedder(cfg.embedding)
    sts, mrpc = [], []
    with open(data / "stsb-train.tsv", newline="") as f:
        for r in csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            try:
                sts.append((float(r[4]), r[5], r[6]))
            except (IndexError, ValueError):
                continue
    with open(data / "mrpc-train.tsv", newline="") as f:
        rows = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        next(rows)
        mrpc = [(int(r[0]), r[3], r[4]) for r in rows]
    sc = cosines(embedder, [(a, b) for _, a, b in sts])
    score = np.array([s for s, _, _ in sts])
    mc = cosines(embedder, [(a, b) for _, a, b in mrpc])
    result = {
        "command": "python -m bench.store.floor",
        "embedder": embedder_identity(cfg.embedding)[0],
        "uptime": os.popen("uptime").read().strip(),
        "stsb_ge3": {"pairs": len(sts), **best_f1(score >= 3, sc)},
        "stsb_ge4": best_f1(score >= 4, sc),
        "mrpc": {"pairs": len(mrpc), **best_f1(np.array([y == 1 for y, _, _ in mrpc]), mc)},
        "recall_stsb_ge3_at_0.82": round(float((sc[score >= 3] >= 0.82).mean()), 4),
    }
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
