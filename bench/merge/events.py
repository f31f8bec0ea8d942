"""Conflicts between distinct events (issue 29, part 3): Loghub template instances and the demo store.

A conflict means the same attribute of the same thing with incompatible values. Two log lines of one
template (one Loghub `EventId`, different block ids, task numbers, hosts) are two events, and so are
"503 after deploy 4.2" / "503 after deploy 4.3": neither may become a CONFLICTS_WITH link. Each
Loghub system (Hadoop, Spark, Linux, HealthApp, 2k lines each, ../shared/data/loghub) is one subject;
its distinct lines are memories, the candidates are each line's `[merge] top_k` nearest lines by
the offline MiniLM cosine (as the merge job's exact blocks give them), and every candidate pair is
decided by merge.score.score_pair with the shipped settings. The demo store (examples/memories.jsonl)
is decided the same way per subject. Counted: conflicts between lines of one template (the target is
0), conflicts between lines of different templates, and the outcomes.

    python -m bench.merge.events    # writes distinct_events into bench/merge/results/merge-quality.json
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.merge.data import DATA, _embedder, memory_text  # noqa: E402
from graphcons.core.config import load_config  # noqa: E402
from graphcons.maintenance.merge.blocking import top_k_pairs  # noqa: E402
from graphcons.maintenance.merge.score import CONFLICT, score_pair  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "merge" / "results" / "merge-quality.json"
SYSTEMS = ("Hadoop", "Spark", "Linux", "HealthApp")


def embed(texts: list[str], tag: str) -> np.ndarray:
    cache = Path("/tmp") / f"graphcons-merge-events-{tag}-{len(texts)}.npy"
    if cache.is_file():
        return np.load(cache)
    vecs = np.asarray(_embedder().embed([memory_text(t) for t in texts]), dtype=np.float32)
    np.save(cache, vecs)
    return vecs


def decide(items: list[dict], vecs: np.ndarray, cfg) -> list[tuple[dict, dict, object]]:
    cos = vecs @ vecs.T
    np.fill_diagonal(cos, -np.inf)
    out = []
    for i, j in top_k_pairs(cos, [m["id"] for m in items], cfg.top_k):
        p = score_pair(items[i], items[j], float(cos[i, j]), cfg)
        out.append((items[i], items[j], p))
    return out


def loghub(cfg) -> dict:
    res = {}
    for system in SYSTEMS:
        with open(DATA / "loghub" / f"{system}_2k.log_structured.csv", newline="", encoding="utf-8") as f:
            lines = {}
            for r in csv.DictReader(f):
                lines.setdefault(r["Content"], r["EventId"])
        items = [{"id": f"{system}-{i:05d}", "content": c, "title": "", "title_derived": True, "event": e,
                  "effective_weight": 0.5, "evidence_count": 1, "version": 1, "namespace": "logs", "subject": system}
                 for i, (c, e) in enumerate(sorted(lines.items()))]
        pairs = decide(items, embed([m["content"] for m in items], system), cfg)
        same = [(a, b, p) for a, b, p in pairs if a["event"] == b["event"]]
        res[system] = {"lines": len(items), "candidate_pairs": len(pairs), "same_template_pairs": len(same),
                       "same_template_conflicts": sum(p.outcome == CONFLICT for *_, p in same),
                       "other_template_conflicts": sum(p.outcome == CONFLICT for a, b, p in pairs if a["event"] != b["event"]),
                       "same_template_outcomes": dict(Counter(p.outcome for *_, p in same)),
                       "conflict_examples": [[a["content"], b["content"], p.contradictions]
                                             for a, b, p in pairs if p.outcome == CONFLICT][:5]}
    return res


def demo(cfg) -> dict:
    mems = [json.loads(line) for line in (ROOT / "examples" / "memories.jsonl").read_text().splitlines() if line.strip()]
    out = {"pairs": [], "conflicts": 0}
    for subject in sorted({m["subject"] for m in mems}):
        items = [{**m, "title_derived": not m.get("title"), "effective_weight": 0.5, "evidence_count": 1, "version": 1}
                 for m in mems if m["subject"] == subject]
        if len(items) < 2:
            continue
        for a, b, p in decide(items, embed([m["content"] for m in items], f"demo-{subject}"), cfg):
            if p.score >= cfg.threshold:
                out["pairs"].append({"a": a["id"], "b": b["id"], "outcome": p.outcome, "reasons": p.contradictions,
                                     "apart": p.apart, "p_duplicate": p.p_duplicate})
                out["conflicts"] += p.outcome == CONFLICT
    return out


def main() -> None:
    cfg = load_config().merge
    res = {"loghub": loghub(cfg), "demo_store": demo(cfg)}
    for system, r in res["loghub"].items():
        print(system, {k: v for k, v in r.items() if k != "conflict_examples"})
        for ex in r["conflict_examples"]:
            print("   ", ex)
    print("demo", res["demo_store"])
    if "--no-save" in sys.argv:
        return
    doc = json.loads(RESULTS.read_text()) if RESULTS.is_file() else {}
    kept = {k: v for k, v in doc.get("distinct_events", {}).items() if k.startswith("baseline")}  # measured on older code
    doc["distinct_events"] = {"command": "python -m bench.merge.events",
                              "uptime": subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip(),
                              **res, **kept}
    RESULTS.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"saved {RESULTS}")


if __name__ == "__main__":
    main()
