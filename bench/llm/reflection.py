"""Reflection (issue 14): which 15 of a user's 50 most recent memories to show, and what the
offline reflector makes of them, on MemoryBank (15 users x 10 days of chat, ../shared/data).

Each user's own chat turns (their queries) are that user's memories, dated by their day;
the 50 most recent are the candidates. Compared selections of 15:
- facility-location (graphcons.profiles.reflect.select: the newest, then greedy
  coverage of the candidates);
- newest-15; max-min diversity (farthest point from the newest, a common alternative);
- random-15 (mean of 20 seeded draws, a baseline only).
Figures per method, averaged over users: coverage (mean over the candidates of the best cosine
to a shown memory), the share of the candidates' days represented among the shown memories.
Then the offline reflector runs on the facility-location selection: statements per user, the
share citing 2+ memories, and the share of cited ids that were shown (grounding: must be 1.0).
No Neo4j: the selection and the reflector are pure functions of the memories and embeddings.

    python -m bench.llm.reflection [--data ../shared/data/memorybank_en.json]

Prints a summary and saves bench/llm/results/reflection.json (with `uptime` load: the machine is shared).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from graphcons.profiles.offline_reflection import extract  # noqa: E402
from graphcons.profiles.reflect import coverage, select  # noqa: E402
from graphcons.consolidation.synthesis.prompt import ReflectionPrompt, Shown  # noqa: E402
from graphcons.core.embedders.minilm import MiniLMEmbedder  # noqa: E402

K, RECENT = 15, 50


def memories(user: str, data: dict) -> list[dict]:
    rows = []
    for day, turns in sorted(data["history"].items()):
        for n, t in enumerate(turns):
            if t.get("query", "").strip():
                rows.append({"id": f"{user}-{day}-{n:02d}", "content": t["query"].strip(), "day": day,
                             "created_at": datetime.fromisoformat(day).replace(tzinfo=timezone.utc, hour=min(n, 23))})
    rows.sort(key=lambda r: (r["created_at"], r["id"]), reverse=True)  # newest first, as the query returns them
    return rows[:RECENT]


def maxmin(rows: list[dict], k: int) -> list[dict]:
    vecs = np.asarray([r["embedding"] for r in rows])
    chosen = [0]
    best = vecs @ vecs[0]
    while len(chosen) < min(k, len(rows)):
        i = int(np.argmin(np.where(np.isin(np.arange(len(rows)), chosen), np.inf, best)))
        chosen.append(i)
        best = np.maximum(best, vecs @ vecs[i])
    return [rows[i] for i in sorted(chosen)]


def day_share(rows: list[dict], shown: list[dict]) -> float:
    return len({r["day"] for r in shown}) / len({r["day"] for r in rows})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared/data/memorybank_en.json"))
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "results/reflection.json"))
    args = ap.parse_args()
    data = json.loads(Path(args.data).read_text())
    emb = MiniLMEmbedder()
    per_method: dict[str, dict[str, list[float]]] = {m: {"coverage": [], "days": []}
                                                    for m in ("facility-location", "newest", "max-min", "random")}
    refl = {"statements": [], "multi_cited_share": [], "cited_shown_share": [], "ms": []}
    users = sorted(data)
    for user in users:
        rows = memories(user, data[user])
        for r, v in zip(rows, emb.embed([r["content"] for r in rows])):
            r["embedding"] = v
        rng = random.Random(42)
        picks = {"facility-location": select(rows, K), "newest": rows[:K], "max-min": maxmin(rows, K)}
        for m, shown in picks.items():
            per_method[m]["coverage"].append(coverage(rows, {r["id"] for r in shown}))
            per_method[m]["days"].append(day_share(rows, shown))
        draws = [rng.sample(rows, min(K, len(rows))) for _ in range(20)]
        per_method["random"]["coverage"].append(float(np.mean([coverage(rows, {r["id"] for r in d}) for d in draws])))
        per_method["random"]["days"].append(float(np.mean([day_share(rows, d) for d in draws])))
        shown = picks["facility-location"]
        prompt = ReflectionPrompt(members=[Shown(id=r["id"], title="", content=r["content"], kind="episode",
                                                 created_at=r["created_at"]) for r in reversed(shown)],
                                  subject=user, namespace="bench")
        t0 = time.perf_counter()
        out = extract(prompt)
        refl["ms"].append((time.perf_counter() - t0) * 1000)
        statements = [s for _, s in out.statements()]
        cited = [i for s in statements for i in s.memory_ids]
        refl["statements"].append(len(statements))
        refl["multi_cited_share"].append(sum(len(s.memory_ids) >= 2 for s in statements) / max(1, len(statements)))
        refl["cited_shown_share"].append(sum(i in prompt.member_ids for i in cited) / max(1, len(cited)))
    summary = {
        "users": len(users), "k": K, "recent": RECENT,
        "selection": {m: {k: round(float(np.mean(v)), 4) for k, v in f.items()} for m, f in per_method.items()},
        "offline_reflection": {"statements_per_user": round(float(np.mean(refl["statements"])), 2),
                               "multi_cited_share": round(float(np.mean(refl["multi_cited_share"])), 3),
                               "cited_shown_share": round(float(np.mean(refl["cited_shown_share"])), 3),
                               "ms_per_reflection": round(float(np.median(refl["ms"])), 2)},
        "uptime": subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip(),
        "note": "2 shared cores, loaded by other sessions: timings are indicative only",
        "cpu_count": os.cpu_count(),
    }
    print(json.dumps(summary, indent=2))
    Path(args.out).write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
