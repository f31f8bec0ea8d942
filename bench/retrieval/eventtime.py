"""Event time (issue 47): how many time expressions the resolver finds and places, and how often
it is right, against hand labels.

Labels: tests/data/event_time_labels.json (LoCoMo dev observations and dialogue turns, each with
its session date; its `how` says how they were made). A resolution is right when a labelled
expression of the same text overlaps it with the same first and last day; it is wrong when it
overlaps an expression labelled unresolvable, or gives other days, or places text no label names.

    python -m bench.retrieval.eventtime

Also counts the expressions found on every dev observation and the time a text takes. Saves
bench/retrieval/results/eventtime.json.
"""

from __future__ import annotations

import json
import os
import sys
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from bench.retrieval.answers import load  # noqa: E402
from graphcons.core.eventtime import resolve  # noqa: E402

LABELS = ROOT / "tests" / "data" / "event_time_labels.json"
RESULTS = ROOT / "bench" / "retrieval" / "results" / "eventtime.json"


def _overlaps(item_text: str, a: str, b: str) -> bool:
    i, j = item_text.find(a), item_text.find(b)
    return i >= 0 and j >= 0 and i < j + len(b) and j < i + len(a)


def score(items: list[dict]) -> dict:
    right, wrong, labelled = 0, [], 0
    for item in items:
        labels = item["expressions"]
        labelled += sum(1 for e in labels if "start" in e)
        for e in resolve(item["text"], date.fromisoformat(item["said"])):
            match = [x for x in labels if _overlaps(item["text"], e.expression, x["expression"])]
            if any(x.get("start") == e.start.isoformat() and x.get("end") == e.end.isoformat() for x in match):
                right += 1
            else:
                wrong.append({"id": item["id"], "expression": e.expression, "got": [e.start.isoformat(), e.end.isoformat()],
                              "label": match[0] if match else None})
    made = right + len(wrong)
    return {"labelled_resolvable": labelled, "labelled_unresolvable": sum(1 for i in items for e in i["expressions"]
                                                                          if "unresolvable" in e),
            "resolved": made, "right": right, "precision": round(right / made, 4) if made else None,
            "recall": round(right / labelled, 4) if labelled else None, "wrong": wrong}


def main() -> None:
    load_before = os.getloadavg()
    items = json.loads(LABELS.read_text())["items"]
    report = {"command": "bench/retrieval/eventtime.py", "labels": score(items)}
    memories, _ = load()
    t = time.perf_counter()
    found = [resolve(m["content"], date.fromisoformat(m["created_at"][:10])) for m in memories]
    per_text_us = (time.perf_counter() - t) / len(memories) * 1e6
    report["dev_observations"] = {"memories": len(memories), "with_expression": sum(1 for f in found if f),
                                  "expressions": sum(len(f) for f in found),
                                  "by_granularity": {g: sum(1 for f in found for e in f if e.granularity == g)
                                                     for g in ("day", "weekend", "week", "month", "season", "year")},
                                  "microseconds_per_text": round(per_text_us, 1)}
    report["load"] = {"before": [round(x, 2) for x in load_before], "after": [round(x, 2) for x in os.getloadavg()]}
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps({k: v for k, v in report["labels"].items() if k != "wrong"}, indent=2))
    print(json.dumps(report["dev_observations"], indent=2))


if __name__ == "__main__":
    main()
