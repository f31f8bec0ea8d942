"""Lever (c) of issue 12, measured before building it: mask every token that holds a digit
(ids, numbers, addresses, versions) before embedding, for clustering only.

No database: the same pipeline as bench/clusters/quality.py's baseline (embeddings -> exact kNN graph
within a subject, k = similar_k, the embedder's floor -> igraph label propagation, seeded),
once on the texts as admitted and once masked. Loghub: ARI / NMI vs EventId per line. Demo:
do the six 503 incidents and Ana's TypeScript preferences each land in one community.
Memorybank: how many messages masking changes at all, and communities of >= 3 per user.

    python -m bench.clusters.masking      # -> bench/clusters/results/quality.json under "masking_lever"

Two masks: every token with a digit ("masked"), or only tokens with >= 4 digits ("ids_masked").
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.clusters.quality import DATA, INCIDENTS, REPO, TYPESCRIPT, igraph_lpa, knn_edges, loghub_items, scores  # noqa: E402
from graphcons.core.config import load_config  # noqa: E402
from graphcons.core.embedders import make_embedder  # noqa: E402
from graphcons.core.memory import content_hash, embedded_text  # noqa: E402


def mask(text: str) -> str:
    """Every token with a digit."""
    return " ".join("<*>" if any(c.isdigit() for c in t) else t for t in text.split())


def mask_ids(text: str) -> str:
    """Only tokens with >= 4 digits (ids, addresses, timestamps); short numbers (503, 4.2) stay."""
    return " ".join("<*>" if sum(c.isdigit() for c in t) >= 4 else t for t in text.split())


MASKS = (("as_admitted", str), ("masked", mask), ("ids_masked", mask_ids))


def communities(emb, texts: list[str], k: int, floor: float) -> list[int]:
    x = np.array(emb.embed(texts), dtype=np.float32)
    sim = x @ x.T
    np.fill_diagonal(sim, -1.0)
    return igraph_lpa(len(texts), knn_edges(sim, k, floor))


def main() -> None:
    cfg = load_config()
    emb = make_embedder(cfg.embedding)
    k, floor = cfg.admission.similar_k, cfg.consolidation.similarity_floor
    out: dict = {"command": "python -m bench.clusters.masking", "k": k, "floor": floor, "loghub": {}}
    for system in ("Hadoop", "Spark", "Linux", "HealthApp"):
        items, truth = loghub_items(system, DATA, 2000)
        index: dict[str, int] = {}
        texts: list[str] = []
        for it in items:
            index.setdefault(content_hash(it["content"]), len(texts))
            if len(texts) < len(index):
                texts.append(it["content"])
        line = [index[content_hash(it["content"])] for it in items]
        row = {}
        for name, f in MASKS:
            labels = communities(emb, [f(t) for t in texts], k, floor)
            row[name] = scores(truth, [labels[i] for i in line])
        row["distinct_masked_texts"] = len({mask(t) for t in texts})
        row["distinct_texts"] = len(texts)
        out["loghub"][system] = row
        print(system, row, file=sys.stderr, flush=True)
    demo = [json.loads(x) for x in (REPO / "examples" / "memories.jsonl").read_text().splitlines() if x]
    out["demo"] = {}
    for name, group in (("incidents_503", INCIDENTS), ("typescript_prefs", TYPESCRIPT)):
        first = next(m for m in demo if m["id"] == group[0])
        scope = [m for m in demo if (m["namespace"], m["subject"]) == (first["namespace"], first["subject"])]
        row = {}
        for how, f in MASKS:
            labels = communities(emb, [f(embedded_text(m.get("title"), m["content"])) for m in scope], k, floor)
            of = {m["id"]: c for m, c in zip(scope, labels)}
            row[how] = len({of[i] for i in group}) == 1
        out["demo"][name] = {"one_community": row}
    data = json.loads((DATA / "memorybank_en.json").read_text())
    changed = changed_ids = total = 0
    per_user = {name: 0 for name, _ in MASKS}
    for user in sorted(data):
        texts = [t["query"].strip() for day in sorted(data[user].get("history", {}))
                 for t in data[user]["history"][day] if (t.get("query") or "").strip()]
        texts = list(dict.fromkeys(texts))
        total += len(texts)
        changed += sum(1 for t in texts if mask(t) != t)
        changed_ids += sum(1 for t in texts if mask_ids(t) != t)
        for how, f in MASKS:
            labels = communities(emb, [f(t) for t in texts], k, floor)
            per_user[how] += sum(1 for c in set(labels) if labels.count(c) >= 3)
    out["memorybank"] = {"messages": total, "changed_by_masking": changed, "changed_by_id_masking": changed_ids, "communities_of_3_or_more": per_user}
    print(json.dumps(out, indent=2))
    path = REPO / "bench" / "clusters" / "results" / "quality.json"
    saved = json.loads(path.read_text())
    saved["masking_lever"] = out
    path.write_text(json.dumps(saved, indent=2) + "\n")


if __name__ == "__main__":
    main()
