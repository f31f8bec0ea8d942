"""Does the context an agent reads hold the current answer? (issue 51) LongMemEval dev questions.

Data: ../shared/data/longmemeval-dev.json (249 questions, each with its evidence chat sessions).
Stored as an agent recording its chats would: every turn a memory (granularity: the turn, as the
chat log has it; docs/RETRIEVAL.md says why), `created_at` the session's date, `subject` the
speaker's role (user / assistant), `session` the chat session, `source` session:turn, each
question in its own namespace.

Data `--haystack s` (issue 61): ../shared/data/longmemeval-s-dev.json.gz, the same dev questions with
their full 50-session haystacks (about 490 turns each, the evidence among other chats), `--per-type`
questions of each type (8 by default: 48), the first by the sha256 of their id, so the set is fixed;
saved as longmemeval_s.json.

Phases. *before*: the store as admitted. *pending* (issue 62): the update pass has run, nothing is
approved (a pending update already puts the newer value first). *after*: consolidation (enabled, not
dry run, offline synthesizer) and the merge pass, every pending proposal approved, as a reviewer who
accepts all would (bench/retrieval/answers.py's consolidate_all; it runs the keys pass first, issue 61).
*after_nokeys*: the after store asked with `[retrieval] keys` off (the keys' ablation, same run);
`keys_per_memory`: the keys the pass wrote per memory. *after_discount_<d>* (`--fit-discounts`): the
after store asked with `[retrieval] key_discount` d, the fit of the discount in one run.

Each question is asked with `now` its own date (`question_date`): with `--question-time on` (or `when`)
its time phrases ("four weeks ago") are counted from it (issue 61's ablation; off by default).

Budgets (issue 61): 150, 300 and 1,000 words, and 200 and 400 model tokens (core/cost.py), the
same in every phase: figures at equal tokens are under `tokens`.

Figures, per question type and phase:
- `session_recall_first10`: the share of the question's answer sessions among the sessions of
  the first 10 memories shown by retrieve(k=10) (hits and the members they carry, in order);
- `context_session_recall[budget]`: the same for the memories context(q, budget) cites;
- `answer_recall[budget]`: the share of the answer's content words (LoCoMo's normalisation) in
  context(q, budget)'s text;
- knowledge-update questions only: `stale_first[budget]` (the context shows a turn of an
  earlier answer session before, or without, one of the latest) and `latest_shown[budget]`;
- `long_turns`: turns longer than each budget (they can only enter a context as excerpts);
- `update_proposals` (after): the update proposals consolidation made, judged against the dev labels
  by bench/retrieval/updates.py (`made`, `right`, `precision`, `wrong` listed).
Saved under the issue's keys: `stale_first[budget][phase]`, `latest_shown[budget][phase]`,
`answer_recall[budget][phase][type]`, `context_session_recall[budget][phase][type]`,
`session_recall_first10[phase][type]`, `update_proposals`, `seconds`, `load`; beside it,
longmemeval-reader-contexts.json holds context(q, 300) of the knowledge-update questions in both phases
for bench/retrieval/reader.py, which adds `reader_f1_knowledge_update[phase]`.

    python -m bench.retrieval.longmemeval [--types knowledge-update,temporal-reasoning] [--limit N] [--no-after]
    python -m bench.retrieval.longmemeval --haystack s [--per-type 8]

Without --uri it uses the throwaway bench server (bench/server.py); with --uri (or $NEO4J_URI) it
WIPES that database first. Saves bench/retrieval/results/longmemeval.json (or --out).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from bench import command, query  # noqa: E402
from bench.retrieval.answers import NOW, answer_words, consolidate_all  # noqa: E402
from bench.retrieval.budgets import LABELS, WORDS, budget, nest, within  # noqa: E402
from bench.retrieval.lme_data import load  # noqa: E402
from bench.server import consolidating_config  # noqa: E402
from graphcons.api import Graphcons  # noqa: E402
from graphcons.core.embedders import make_embedder  # noqa: E402
from graphcons.store.admission import admit_many  # noqa: E402

RESULTS = ROOT / "bench" / "retrieval" / "results" / "longmemeval.json"
RESULTS_S = ROOT / "bench" / "retrieval" / "results" / "longmemeval_s.json"
def _sessions(memories) -> list[str]:
    """The chat sessions of the memories shown, in order (an insight shows its members' sessions)."""
    out = []
    for m in memories:
        if m.session and m.kind != "insight":
            out.append(m.session)
    return out


def ask(g: Graphcons, q: dict) -> dict:
    hits = g.retrieve(q["question"], k=10, namespace=q["namespace"], record=False, now=q["date"])
    shown = [m for h in hits for m in [h.memory] + [x.memory for x in h.members or []]][:10]
    answer = set(q["answer_sessions"])
    row = {"session_recall_first10": len(answer & set(_sessions(shown))) / len(answer) if answer else None}
    gold = answer_words(q["answer"])
    for b in LABELS:  # words, and tokens under "tokens/" (bench/retrieval/budgets.py)
        ctx = g.context(q["question"], namespace=q["namespace"], record=False, now=q["date"], **budget(b))
        assert within(ctx, b), (q["id"], b)
        cited = g.db.run_text(query("cited_memories"), ids=ctx.ids)
        order = [r["session"] for r in sorted(cited, key=lambda r: ctx.ids.index(r["id"])) if r["session"]]
        row[f"context_session_recall@{b}"] = len(answer & set(order)) / len(answer) if answer else None
        row[f"answer@{b}"] = len(gold & answer_words(ctx.text)) / len(gold) if gold else None
        if q["type"] == "knowledge-update":
            latest = set(q["latest_sessions"])
            first = next((s for s in order if s in answer), None)
            row[f"stale_first@{b}"] = float(first is not None and first not in latest)
            row[f"latest_shown@{b}"] = float(bool(latest & set(order)))
    return row


def summarise(rows: list[dict], questions: list[dict]) -> dict:
    by_type: dict[str, list[dict]] = defaultdict(list)
    for r, q in zip(rows, questions):
        by_type[q["type"]].append(r)
    out: dict = {}
    for key in sorted({k for r in rows for k in r}):
        out[key] = {t: round(sum(r[key] for r in rs if r.get(key) is not None) /
                             max(1, sum(1 for r in rs if r.get(key) is not None)), 4)
                    for t, rs in sorted(by_type.items()) if any(r.get(key) is not None for r in rs)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--uri", default=os.environ.get("NEO4J_URI"), help="wipe and use this Neo4j (default: bench server)")
    ap.add_argument("--types", help="only these question types, comma-separated")
    ap.add_argument("--limit", type=int, help="at most this many questions of each type")
    ap.add_argument("--no-after", dest="after", action="store_false", help="skip the pending and after phases")
    ap.add_argument("--haystack", choices=("oracle", "s"), default="oracle",
                    help="oracle: the evidence sessions only; s: the 50-session haystacks (issue 61)")
    ap.add_argument("--per-type", type=int, default=8, help="with --haystack s: questions of each type")
    ap.add_argument("--key-sentences", choices=("first_person", "all"), help="[retrieval] key_sentences for this run")
    ap.add_argument("--question-time", choices=("on", "off"), help="[retrieval] question_time for this run "
                    "(default: the shipped setting): the question's own time phrases rank, counted from its date")
    ap.add_argument("--key-discount", type=float, help="[retrieval] key_discount for this run: a key's cosine counts "
                    "this much below the memory's own")
    ap.add_argument("--fit-discounts", type=lambda v: [float(x) for x in v.split(",")], default=[],
                    help="comma-separated: the after store asked again with each key_discount (phases "
                    "after_discount_<d>), a fit of the discount in one run")
    ap.add_argument("--exclude", type=Path, help="a result file of this bench: its question_ids are left out "
                    "(a held-out run beside the questions a setting was fitted on)")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    args.out = args.out or (RESULTS if args.haystack == "oracle" else RESULTS_S)
    load_before, t0 = os.getloadavg(), time.perf_counter()
    cfg = consolidating_config(args.uri, daily_cap=100_000)
    if args.key_sentences:  # issue 61: which sentences become retrieval keys (the ablation of the rule)
        cfg.retrieval.key_sentences = args.key_sentences
    if args.question_time:
        cfg.retrieval.question_time = args.question_time == "on"
    if args.key_discount is not None:
        cfg.retrieval.key_discount = args.key_discount
    memories, questions = load(set(args.types.split(",")) if args.types else None, args.limit, args.haystack,
                               args.per_type)
    if args.exclude:
        fitted = set(json.loads(args.exclude.read_text())["question_ids"])
        questions = [q for q in questions if q["id"] not in fitted]
        kept = {q["namespace"] for q in questions}
        memories = [m for m in memories if m["namespace"] in kept]
    report: dict = {"command": command("bench.retrieval.longmemeval"), "haystack": args.haystack,
                    "key_sentences": cfg.retrieval.key_sentences, "key_discount": cfg.retrieval.key_discount,
                    "excluded": str(args.exclude) if args.exclude else None,
                    "questions": dict(Counter(q["type"] for q in questions), total=len(questions)),
                    "question_ids": [q["id"] for q in questions], "memories": len(memories),
                    "question_time": cfg.retrieval.question_time,
                    "long_turns": {b: sum(1 for m in memories if len(m["content"].split()) > b) for b in WORDS}}
    rows: dict[str, list[dict]] = {}
    readers: dict[str, list[dict]] = {}
    with Graphcons(cfg, embedder=make_embedder(cfg.embedding)) as g:
        with g.db.driver.session(database=cfg.neo4j.database) as session:  # the bench store only
            session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS").consume()
        g.init()
        t = time.perf_counter()
        vectors = g.embedder.embed([m["content"] for m in memories])
        for ns in dict.fromkeys(m["namespace"] for m in memories):  # one batch a question: the graph admit gives
            at = [i for i, m in enumerate(memories) if m["namespace"] == ns]
            admit_many(g.db, g.config, g.embedder, [memories[i] for i in at], [vectors[i] for i in at])
        report["admit_seconds"] = round(time.perf_counter() - t, 1)
        for phase in ("before", "pending", "after") if args.after else ("before",):
            if phase == "pending":  # issue 62: the pass has run, nobody has reviewed anything
                t = time.perf_counter()
                found = g.updates(dry_run=False, now=NOW)
                report["pending_updates"] = {"proposed": len(found.proposed),
                                             "seconds": round(time.perf_counter() - t, 1)}
            if phase == "after":
                report["consolidation"] = consolidate_all(g, argparse.Namespace(llm=None))
                report["update_proposals"] = update_proposals(g, questions)
                report["update_pairs"] = report["update_proposals"].pop("update_pairs")
            t = time.perf_counter()
            rows[phase] = [ask(g, q) for q in questions]
            report.setdefault("ask_seconds", {})[phase] = round(time.perf_counter() - t, 1)
            if phase == "after":  # issue 61's ablation: the same store, retrieval keys not read
                report["keys_per_memory"] = report["consolidation"]["keys_per_memory"]
                g.config.retrieval.keys = False
                rows["after_nokeys"] = [ask(g, q) for q in questions]
                g.config.retrieval.keys = True
                shipped = g.config.retrieval.key_discount
                for d in args.fit_discounts:
                    g.config.retrieval.key_discount = d
                    rows[f"after_discount_{d:g}"] = [ask(g, q) for q in questions]
                g.config.retrieval.key_discount = shipped
            readers[phase] = [{"id": q["id"], "category": q["type"], "question": q["question"], "answer": q["answer"],
                               **_reader_context(g, q)} for q in questions if q["type"] == "knowledge-update"]
    report.update(figures(rows, questions))
    report["seconds"] = round(time.perf_counter() - t0, 1)
    report["load"] = {"before": [round(x, 2) for x in load_before], "after": [round(x, 2) for x in os.getloadavg()]}
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    # what bench/retrieval/reader.py reads: context(q, 300) of the knowledge-update questions, both phases
    contexts = args.out.with_name(args.out.stem + "-reader-contexts.json")
    contexts.write_text(json.dumps({"command": report["command"], "results": args.out.name,
                                    "key": "reader_f1_knowledge_update", "phases": readers}, indent=1) + "\n")
    print(json.dumps({k: v for k, v in report.items() if k != "update_proposals"}, indent=2))


def _reader_context(g: Graphcons, q: dict) -> dict:
    ctx = g.context(q["question"], 300, namespace=q["namespace"], record=False, now=q["date"])
    return {"context": ctx.text, "words": ctx.words}


def figures(rows: dict[str, list[dict]], questions: list[dict]) -> dict:
    """The issue's keys: stale_first[budget][phase], latest_shown[budget][phase],
    answer_recall[budget][phase][type], context_session_recall[budget][phase][type], and
    session_recall_first10[phase][type]."""
    by = {phase: summarise(r, questions) for phase, r in rows.items()}
    ku = "knowledge-update"
    out: dict = {"session_recall_first10": {ph: by[ph]["session_recall_first10"] for ph in by}}
    for b in LABELS:
        for key, name in (("answer", "answer_recall"), ("context_session_recall", "context_session_recall")):
            nest(out.setdefault(name, {}), b, {ph: by[ph][f"{key}@{b}"] for ph in by})
        for key in ("stale_first", "latest_shown"):
            nest(out.setdefault(key, {}), b, {ph: by[ph].get(f"{key}@{b}", {}).get(ku) for ph in by})
    return out


def update_proposals(g: Graphcons, questions: list[dict]) -> dict:
    """The update proposals consolidation made in the store (any status: the bench approves them all),
    judged against the dev labels as bench/retrieval/updates.py judges its offline run (issue 51)."""
    from bench.retrieval.updates import figures as judged, labels, update_pairs
    from graphcons.maintenance.updates.detect import Update

    made = []
    for p in g.proposals(kind="update", limit=1_000_000):
        u = p["payload"] if isinstance(p["payload"], dict) else json.loads(p["payload"])
        made.append(Update(**u))
    labels_, order = labels()
    asked = {q["namespace"] for q in questions}
    run = [ns for ns in order if ns in asked]
    # issue 62: against the labelled pair set too (a proposal outside the set counts as not right)
    return {**judged(made, labels_, run, {}), "update_pairs": update_pairs(made, labels_, run)}


if __name__ == "__main__":
    main()
