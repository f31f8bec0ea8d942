"""Is a query's own time phrase worth using? (issue 47: event time on request) LongMemEval dev.

The temporal-reasoning questions of ../shared/data/longmemeval-dev.json whose text holds a time
phrase the resolver places against the question's date ("the past weekend", "last Friday", "in
June", "4 weeks ago"), their evidence sessions stored as bench/retrieval/longmemeval.py stores them
(every turn a memory, `created_at` the session's date, one namespace per question). Each question
is asked three ways, `as_of` the question's date in all three (it hides nothing here: every session
precedes its question; it is what "last Friday" is resolved against):

- `default`: retrieve / context as shipped (when off);
- `boost`: `when="auto"` (in-window memories move up);
- `restrict`: `when="auto", when_mode="restrict"` (in-window memories only).

Figures per arm: `session_recall_first10` (answer sessions among the sessions of retrieve(k=10)),
`context_session_recall@B` and `answer@B` (the answer's content words in context(q, B)), B = 150, 300.

    python -m bench.retrieval.when [--uri bolt://...]

Without --uri it uses the throwaway bench server (bench/server.py); with --uri (or $NEO4J_URI) it
WIPES that database first. Saves bench/retrieval/results/when.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from bench.retrieval.answers import answer_words  # noqa: E402
from bench.retrieval.lme_data import DATA, load, when  # noqa: E402
from bench import command  # noqa: E402
from bench.server import bench_server  # noqa: E402
from graphcons.api import Graphcons  # noqa: E402
from graphcons.core.config import Config, Neo4jConfig  # noqa: E402
from graphcons.core.embedders import make_embedder  # noqa: E402
from graphcons.core.eventtime import resolve  # noqa: E402
from graphcons.store.admission import admit  # noqa: E402

RESULTS = ROOT / "bench" / "retrieval" / "results" / "when.json"
BUDGETS = (150, 300)
ARMS = {"default": {}, "boost": {"when": "auto"}, "restrict": {"when": "auto", "when_mode": "restrict"}}


def questions_with_a_phrase() -> tuple[list[dict], list[dict]]:
    asked_at = {q["question_id"]: when(q["question_date"]) for q in json.loads(DATA.read_text())}
    memories, questions = load({"temporal-reasoning"}, None)
    keep = [dict(q, as_of=asked_at[q["id"]]) for q in questions if resolve(q["question"], asked_at[q["id"]])]
    spaces = {q["namespace"] for q in keep}
    return [m for m in memories if m["namespace"] in spaces], keep


def ask(g: Graphcons, q: dict, arm: dict) -> dict:
    common = dict(namespace=q["namespace"], record=False, as_of=q["as_of"], **arm)
    hits = g.retrieve(q["question"], k=10, **common)
    shown = [m for h in hits for m in [h.memory] + [x.memory for x in h.members or []]][:10]
    answer = set(q["answer_sessions"])
    row = {"session_recall_first10": len(answer & {m.session for m in shown}) / len(answer)}
    gold = answer_words(q["answer"])
    for b in BUDGETS:
        ctx = g.context(q["question"], b, **common)
        sessions = {r["session"] for r in g.db.run_text("UNWIND $ids AS i MATCH (m:Memory {id: i}) "
                                                        "RETURN m.session AS session", ids=ctx.ids)}
        row[f"context_session_recall@{b}"] = len(answer & sessions) / len(answer)
        row[f"answer@{b}"] = len(gold & answer_words(ctx.text)) / len(gold) if gold else None
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--uri", default=os.environ.get("NEO4J_URI"), help="wipe and use this Neo4j (default: bench server)")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    load_before = os.getloadavg()
    cfg = Config(neo4j=Neo4jConfig(uri=args.uri, password=os.environ.get("NEO4J_PASSWORD") or None)) if args.uri \
        else bench_server(heap="1g", pagecache="512m")
    memories, questions = questions_with_a_phrase()
    report: dict = {"command": command("bench.retrieval.when"), "questions": len(questions),
                    "memories": len(memories), "arms": {}, "by_question": {}}
    with Graphcons(cfg, embedder=make_embedder(cfg.embedding)) as g:
        with g.db.driver.session(database=cfg.neo4j.database) as session:  # the bench store only
            session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS").consume()
        g.init()
        for mem, vec in zip(memories, g.embedder.embed([m["content"] for m in memories])):
            admit(g.db, g.config, g.embedder, mem, embedding=vec)
        t = time.perf_counter()
        for name, arm in ARMS.items():
            rows = [ask(g, q, arm) for q in questions]
            report["arms"][name] = {k: round(sum(r[k] for r in rows if r[k] is not None) /
                                             max(1, sum(1 for r in rows if r[k] is not None)), 4) for k in rows[0]}
            for q, r in zip(questions, rows):
                report["by_question"].setdefault(q["id"], {"question": q["question"]})[name] = r["answer@300"]
        report["seconds"] = round(time.perf_counter() - t, 1)
    report["load"] = {"before": [round(x, 2) for x in load_before], "after": [round(x, 2) for x in os.getloadavg()]}
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps({k: v for k, v in report.items() if k != "by_question"}, indent=2))


if __name__ == "__main__":
    main()
