"""What a profile card keeps of its members (issue 47 item 2), on the four LoCoMo dev conversations.

Each speaker's observations become card items (graphcons/profiles/card_items: the parse, no store),
dated as the card job dates them. Figures:
- `items`, `groups`: items made (of the observations attempted) and their groups;
- `words_kept`: words of the items over words of their members (what a card saves per fact);
- `answer_words_kept[category]`: for each question, the gold answer's words found in the full text
  of its evidence observations, and the share of those still in the evidence's items with their
  dates, as context() shows them (what the
  compression loses of what a reader needs; a question whose evidence holds no answer word is not
  counted, and their number is reported);
- `seconds`: the parse of every observation, model load included.

    python -m bench.retrieval.cards        # saves bench/retrieval/results/cards.json
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.retrieval.answers import CATEGORIES, answer_words, load  # noqa: E402
from graphcons.profiles import card_items as extract  # noqa: E402
from graphcons.profiles.card_pass import item_date  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "cards.json"


def main() -> None:
    load_before = os.getloadavg()
    memories, questions = load()
    t = time.perf_counter()
    blocks: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for m in memories:
        blocks[(m["namespace"], m["subject"])].append(
            {"id": m["id"], "content": m["content"], "date": item_date(m["content"], m["created_at"])})
    items = {i.member_id: i for (ns, subject), mems in sorted(blocks.items()) for i in extract.items(mems, subject)}
    seconds = time.perf_counter() - t
    by_id = {m["id"]: m for m in memories}
    by_turn: dict[tuple[str, str], list[str]] = defaultdict(list)
    for m in memories:
        by_turn[(m["namespace"], m["source"])].append(m["id"])
    kept: dict[str, list[float]] = defaultdict(list)
    unanswerable = Counter()
    for q in questions:
        ids = [i for turn in q["evidence"] for i in by_turn.get((q["namespace"], turn), [])]
        gold = answer_words(q["answer"])
        full = gold & set().union(*(answer_words(by_id[i]["content"]) for i in ids)) if ids else set()
        cat = CATEGORIES[q["category"]]
        if not full:
            unanswerable[cat] += 1
            continue
        short = gold & set().union(*(answer_words(f"{items[i].text} {items[i].date}") for i in ids if i in items))
        kept[cat].append(len(short & full) / len(full))
        kept["overall"].append(len(short & full) / len(full))
    words_in = sum(len(by_id[i].get("content", "").split()) for i in items)
    words_out = sum(len(i.text.split()) for i in items.values())
    report = {
        "benchmark": "profile-card items of the LoCoMo dev observations (issue 47 item 2)",
        "command": "python -m bench.retrieval.cards", "parser": extract.PARSER,
        "observations": len(memories), "items": len(items), "items_share": round(len(items) / len(memories), 4),
        "groups": dict(Counter(i.group for i in items.values()).most_common()),
        "words_kept": round(words_out / words_in, 4),
        "answer_words_kept": {c: round(sum(v) / len(v), 4) for c, v in sorted(kept.items())},
        "questions_counted": {c: len(v) for c, v in sorted(kept.items())},
        "questions_without_answer_words_in_evidence": dict(unanswerable),
        "seconds": round(seconds, 1), "load": {"before": load_before, "after": os.getloadavg()},
        "uptime": subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip(),
        "examples": [{"member": by_id[i.member_id]["content"], "item": i.text, "group": i.group, "date": i.date}
                     for i in list(items.values())[::150]],
    }
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps({k: v for k, v in report.items() if k != "examples"}, indent=1))


if __name__ == "__main__":
    main()
