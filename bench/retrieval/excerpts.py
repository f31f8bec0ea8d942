"""How many sentences should an excerpt show? (issue 61: the knowledge-update regression before consolidation)

One store of LongMemEval dev questions (oracle sessions, admitted as bench/retrieval/longmemeval.py admits
them), then the before phase's figures (answer words, answer sessions cited, stale_first and latest_shown at
150 / 300 / 1000 words; bench/retrieval/longmemeval.py's `ask`) for each excerpt length: the same store and
ranking, only `recall.context.EXCERPT_SENTENCES` changed (0: no excerpts; 1000: every sentence that shares a
query word, as many as fit, the rule before issue 61).

    python -m bench.retrieval.excerpts [--types knowledge-update] [--limit 15] [--sentences 1000,0,1,2] [--uri URI]

Saves bench/retrieval/results/excerpts.json (figures by length and question type; docs/RETRIEVAL.md).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench import command  # noqa: E402
from bench.retrieval import longmemeval as lme  # noqa: E402
from bench.retrieval.lme_data import load  # noqa: E402
from bench.server import consolidating_config  # noqa: E402
from graphcons.api import Graphcons  # noqa: E402
from graphcons.core.embedders import make_embedder  # noqa: E402
from graphcons.recall import context  # noqa: E402
from graphcons.store.admission import admit_many  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "excerpts.json"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--uri", default=os.environ.get("NEO4J_URI"), help="wipe and use this Neo4j (default: bench server)")
    ap.add_argument("--types", help="only these question types, comma-separated")
    ap.add_argument("--limit", type=int, help="at most this many questions of each type")
    ap.add_argument("--sentences", default="1000,0,1,2", help="excerpt lengths to compare (0: none)")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    cfg = consolidating_config(args.uri, daily_cap=100_000)
    memories, questions = load(set(args.types.split(",")) if args.types else None, args.limit)
    lme.BUDGETS = [(b, x) for b, x in lme.BUDGETS if not b.startswith("tokens")]
    report: dict = {"command": command("bench.retrieval.excerpts"), "question_ids": [q["id"] for q in questions],
                    "load_before": [round(x, 2) for x in os.getloadavg()], "by_sentences": {}}
    with Graphcons(cfg, embedder=make_embedder(cfg.embedding)) as g:
        with g.db.driver.session(database=cfg.neo4j.database) as session:  # the bench store only
            session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS").consume()
        g.init()
        vectors = g.embedder.embed([m["content"] for m in memories])
        for ns in dict.fromkeys(m["namespace"] for m in memories):
            at = [i for i, m in enumerate(memories) if m["namespace"] == ns]
            admit_many(g.db, g.config, g.embedder, [memories[i] for i in at], [vectors[i] for i in at])
        shipped = context.EXCERPT_SENTENCES
        try:
            for n in [int(x) for x in args.sentences.split(",")]:
                context.EXCERPT_SENTENCES = n
                t = time.perf_counter()
                rows = [lme.ask(g, q) for q in questions]
                report["by_sentences"][str(n)] = {"seconds": round(time.perf_counter() - t, 1),
                                                  **lme.summarise(rows, questions)}
                print(n, json.dumps({k: v for k, v in report["by_sentences"][str(n)].items()
                                     if k.startswith(("answer@", "context_session_recall@300"))}), flush=True)
        finally:
            context.EXCERPT_SENTENCES = shipped
    report["load_after"] = [round(x, 2) for x in os.getloadavg()]
    args.out.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
