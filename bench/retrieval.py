"""Does consolidation help an agent find a question's evidence? (issue 9)

On the LoCoMo dev conversations (../shared/data/locomo-dev.json): every observation becomes
a memory (namespace = conversation, subject = speaker, source = dialogue turn). The
questions are split in two halves with a fixed seed. For the first half, the memories
holding a question's evidence turns are recorded as used together (co-access, one session
per question: what an agent that used them would record). Consolidation is then enabled
(enabled = true, dry_run = false, offline synthesizer), run, and every pending proposal is
approved. For the other half, before and after consolidation, in one run:

- evidence recall@5 / @10: share of a question's evidence turns among the sources of the
  memories returned (insights themselves carry no turn; their nested members do), and
- full coverage@10: share of questions whose evidence turns are all covered,

per question category (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial;
"overall" = all of them) for vector, keyword (both plain) and the default `retrieve` (hybrid,
graph-aware, insights grouped; k counts every memory shown, nested members included). Queries
are scoped to the conversation. Each question is asked once at k=10: @5 is its prefix (the
top k of a query is the prefix of its top k+n, tests/test_retrieval.py). Latency is the
retrieve call with the query embedding already computed (the embedder is given the vectors
up front), p50/p95 per mode and phase.

Split (issue 28): the default's fusion and graph weights were chosen on these conversations,
so the bench also fits them on one conversation (grid below, best overall recall@10 averaged
over both phases) and reports that fit on the other conversation, both ways, beside the
shipped defaults and vector on the same held-out questions.

    .venv/bin/python bench/retrieval.py [--seed 9] [--uri bolt://...] [--no-grid]
    .venv/bin/python bench/retrieval.py --conversation conv-26 --no-grid --llm http://127.0.0.1:8080/v1

Without --uri it uses the throwaway bench server (bench/server.py); with --uri (or
$NEO4J_URI) it WIPES that database first. Saves bench/results/retrieval.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import query  # noqa: E402
from bench.server import bench_server, stop_bench_server  # noqa: E402
from graphcons.api import Graphcons  # noqa: E402
from graphcons.core.config import Config, LLMConfig, Neo4jConfig  # noqa: E402
from graphcons.core.embedders import make_embedder  # noqa: E402
from graphcons.store.admission import admit  # noqa: E402

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "locomo-dev.json"
RESULTS = Path(__file__).resolve().parent / "results" / "retrieval.json"
NOW = datetime(2026, 1, 15, 12, 0, tzinfo=timezone.utc)
VARIANTS = {  # name: (mode, insights); None = the configured default
    "vector": ("vector", "plain"),
    "keyword": ("keyword", "plain"),
    "default": (None, None),
}
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
# Run 1 (2026-12-03 09:32, summed spread, SIMILAR on) fitted keyword_weight over (0, 0.2, 0.4) x
# graph_weight (0, 0.2, 0.5, 1): both folds chose graph 0 and keyword 0.2 / 0.4 (docs/RETRIEVAL.md).
GRID = {"keyword_weight": (0.4,), "graph_weight": (0.0, 0.1, 0.25)}


class KnownVectors:
    """The bench's embedder: queries embedded up front, so a timed retrieve excludes the embedding."""

    def __init__(self, inner, texts: list[str]):
        self.inner = inner
        self.known = dict(zip(texts, inner.embed(texts)))

    def embed_one(self, text: str) -> list[float]:
        return self.known[text] if text in self.known else self.inner.embed_one(text)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def load() -> tuple[list[dict], list[dict]]:
    memories, questions = [], []
    for conv in json.loads(DATA.read_text()):
        ns = conv["sample_id"]
        for session in sorted(conv["observation"], key=lambda s: int(s.split("_")[1])):
            for speaker, facts in conv["observation"][session].items():
                for n, (fact, turn) in enumerate(facts):
                    memories.append({"id": f"{ns}.{session.split('_')[1]}.{speaker}.{n}", "content": fact,
                                     "namespace": ns, "subject": speaker, "source": str(turn), "kind": "observation",
                                     "session": f"{ns}-{session}"})
        for i, qa in enumerate(conv["qa"]):
            evidence = {e.strip() for e in qa.get("evidence", []) if e and e.strip()}
            if evidence:
                questions.append({"id": f"{ns}-q{i}", "namespace": ns, "question": qa["question"],
                                  "category": qa["category"], "evidence": sorted(evidence)})
    return memories, questions


def shown(hits: list[dict]) -> list:
    """Every memory returned, in order: each hit, then the members nested under it."""
    out = []
    for h in hits:
        out.append((h["memory"], False))
        out += [(m["memory"], True) for m in h.get("members", [])]
    return out


def ask(g: Graphcons, q: dict, mode: str | None, insights: str | None) -> tuple[dict, float]:
    """One question at k=10: recall@5 / @10 and full@10 (@5 = the first five memories shown)."""
    t = time.perf_counter()
    hits = g.retrieve(q["question"], k=10, namespace=q["namespace"], mode=mode, insights=insights, record=False)
    ms = 1000 * (time.perf_counter() - t)
    mems = shown(hits)
    row = {}
    for k in (5, 10):
        found = set(q["evidence"]) & {s for m, _ in mems[:k] if m.kind != "insight" for s in m.sources}
        row[f"recall@{k}"] = len(found) / len(q["evidence"])
    row["full@10"] = float(row["recall@10"] == 1.0)
    row["_via_members"] = len(set(q["evidence"]) & {s for m, nested in mems if nested for s in m.sources}
                              - {s for m, nested in mems if not nested for s in m.sources})
    return row, ms


def summarise(rows: list[dict], questions: list[dict]) -> dict:
    per_cat: dict[str, list] = defaultdict(list)
    for q, row in zip(questions, rows):
        per_cat[CATEGORIES[q["category"]]].append(row)
        per_cat["overall"].append(row)
    return {cat: {"n": len(r), **{m: round(sum(x[m] for x in r) / len(r), 4) for m in ("recall@5", "recall@10", "full@10")}}
            for cat, r in sorted(per_cat.items())}


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(p * len(ordered)))], 2)


def evaluate(g: Graphcons, questions: list[dict]) -> tuple[dict, dict, dict]:
    out, latency, per_question = {}, {}, {}
    for name, (mode, insights) in VARIANTS.items():
        rows, times = zip(*(ask(g, q, mode, insights) for q in questions))
        per_question[name] = list(rows)
        out[name] = summarise(list(rows), questions)
        out[name]["_evidence_found_only_via_insight_members@10"] = sum(r["_via_members"] for r in rows)
        latency[name] = {"p50": percentile(times, 0.5), "p95": percentile(times, 0.95), "n": len(times)}
    return out, latency, per_question


def grid(g: Graphcons, questions: list[dict]) -> dict[tuple, list[dict]]:
    """Per-question rows of the default retrieve at every (keyword_weight, graph_weight) of GRID."""
    rc = g.config.retrieval
    saved = (rc.keyword_weight, rc.graph_weight)
    out = {}
    for kw in GRID["keyword_weight"]:
        for gw in GRID["graph_weight"]:
            rc.keyword_weight, rc.graph_weight = kw, gw
            out[(kw, gw)] = [ask(g, q, None, None)[0] for q in questions]
    rc.keyword_weight, rc.graph_weight = saved
    return out


def split(questions: list[dict], grids: dict[str, dict], phases: dict[str, dict]) -> dict:
    """Fit (keyword_weight, graph_weight) on one conversation, report on the other, both ways."""
    convs = sorted({q["namespace"] for q in questions})
    out = {}
    for held in convs:
        fit_idx = [i for i, q in enumerate(questions) if q["namespace"] != held]
        test_idx = [i for i, q in enumerate(questions) if q["namespace"] == held]

        def mean(rows: list[dict], idx: list[int]) -> float:
            return sum(rows[i]["recall@10"] for i in idx) / len(idx)

        best = max(grids["before"], key=lambda c: (round(sum(mean(grids[ph][c], fit_idx) for ph in grids) / 2, 6),
                                                  -c[0], -c[1]))
        test_q = [questions[i] for i in test_idx]
        out[f"fit_on_others_report_on_{held}"] = {
            "fitted": {"keyword_weight": best[0], "graph_weight": best[1]},
            "questions": len(test_idx),
            **{ph: {"default_fitted": {c: v["recall@10"] for c, v in summarise([grids[ph][best][i] for i in test_idx], test_q).items()},
                    **{name: {c: v["recall@10"] for c, v in summarise([phases[ph][name][i] for i in test_idx], test_q).items()}
                       for name in phases[ph]}}
               for ph in grids},
        }
    return out


def record_coaccess(g: Graphcons, questions: list[dict], by_source: dict[tuple[str, str], list[str]]) -> int:
    sessions = 0
    for q in questions:
        ids = sorted({mid for turn in q["evidence"] for mid in by_source.get((q["namespace"], turn), [])})
        if len(ids) >= 2:
            g.access(f"bench-{q['id']}", ids)
            sessions += 1
    return sessions


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=9)
    ap.add_argument("--uri", default=os.environ.get("NEO4J_URI"), help="wipe and use this Neo4j (default: bench server)")
    ap.add_argument("--no-grid", dest="grid", action="store_false", help="skip the fit-on-one-conversation split")
    ap.add_argument("--conversation", help="only this dev conversation (e.g. conv-26)")
    ap.add_argument("--llm", metavar="BASE_URL", help="synthesize with this OpenAI-protocol endpoint (e.g. the local "
                    "llama.cpp server of ../shared/MODELS.md, http://127.0.0.1:8080/v1) instead of the offline "
                    "synthesizer; results go to bench/results/retrieval-llm.json")
    ap.add_argument("--model", default="local", help="with --llm: the model name the endpoint serves")
    ap.add_argument("--graph-method", choices=("spread", "ppr"),
                    help="[retrieval] graph_method for the default ranking (default: the shipped setting)")
    ap.add_argument("--diversity", type=float, help="[retrieval] diversity for the default ranking "
                    "(default: the shipped setting; 0 turns it off)")
    ap.add_argument("--graph-weights", help="comma-separated graph_weight values of the grid (default: "
                    + ",".join(str(w) for w in GRID["graph_weight"]) + ")")
    ap.add_argument("--out", type=Path, help="where the JSON goes (default: bench/results/retrieval.json, "
                    "retrieval-llm.json with --llm)")
    args = ap.parse_args()
    results = args.out or (RESULTS.with_name("retrieval-llm.json") if args.llm else RESULTS)
    if args.graph_weights:
        GRID["graph_weight"] = tuple(float(w) for w in args.graph_weights.split(","))
    load_before = os.getloadavg()
    if args.uri:
        cfg = Config(neo4j=Neo4jConfig(uri=args.uri, password=os.environ.get("NEO4J_PASSWORD") or None))
    else:
        cfg = bench_server(heap="1g", pagecache="512m")
    if args.graph_method:
        cfg.retrieval.graph_method = args.graph_method
    if args.diversity is not None:
        cfg.retrieval.diversity = args.diversity
    cfg.consolidation.enabled = True
    cfg.consolidation.dry_run = False
    cfg.consolidation.daily_cap = 10_000  # approve every cluster the gate accepts, not the first 20
    if args.llm:  # a local CPU model: minutes per call, no HTTP retry (a retry would only double the wait)
        cfg.llm = LLMConfig(provider="openai", base_url=args.llm, model=args.model, timeout_s=900.0, max_retries=0,
                            context_tokens=4096)
    memories, questions = load()
    if args.conversation:
        memories = [m for m in memories if m["namespace"] == args.conversation]
        questions = [q for q in questions if q["namespace"] == args.conversation]
        if not memories:
            raise SystemExit(f"--conversation: no dev conversation {args.conversation!r} in {DATA}")
    rng = random.Random(args.seed)
    order = list(range(len(questions)))
    rng.shuffle(order)
    half = len(order) // 2
    used = [questions[i] for i in sorted(order[:half])]
    asked = [questions[i] for i in sorted(order[half:])]
    report: dict = {
        "command": "python bench/retrieval.py " + " ".join(sys.argv[1:]),
        "data": str(DATA.name), "seed": args.seed, "memories": len(memories),
        "questions": {"coaccess_half": len(used), "asked_half": len(asked)},
        "settings": {"retrieval": cfg.retrieval.model_dump(), "admission": cfg.admission.model_dump(),
                     "consolidation": cfg.consolidation.model_dump(), "llm_provider": cfg.llm.provider,
                     "embedder": cfg.embedding.model},
        "uptime_load_before": [round(x, 2) for x in load_before],
    }
    per_question: dict[str, dict] = {}
    grids: dict[str, dict] = {}
    report["latency_ms"] = {"what": "retrieve(k=10) with the query already embedded, per question", }
    embedder = KnownVectors(make_embedder(cfg.embedding), [q["question"] for q in asked])
    with Graphcons(cfg, embedder=embedder) as g:
        with g.db.driver.session(database=cfg.neo4j.database) as session:
            session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS").consume()
        g.init()
        t = time.perf_counter()
        vectors = g.embedder.embed([m["content"] for m in memories])
        by_source: dict[tuple[str, str], list[str]] = defaultdict(list)
        for mem, vec in zip(memories, vectors):
            result = admit(g.db, g.config, g.embedder, mem, embedding=vec)
            by_source[(mem["namespace"], mem["source"])].append(result.id)
        report["admit_seconds"] = round(time.perf_counter() - t, 1)
        report["coaccess_sessions"] = record_coaccess(g, used, by_source)
        report["before"], report["latency_ms"]["before"], per_question["before"] = evaluate(g, asked)
        if args.grid:
            grids["before"] = grid(g, asked)
        t = time.perf_counter()
        run = g.consolidate(now=NOW)
        approved = 0
        for p in g.proposals(status="pending", kind="consolidate", limit=10_000):
            g.approve(p["id"], by="bench", now=NOW)
            approved += 1
        stats = g.db.run_text(query("retrieval_summarised"))[0]
        report["consolidation"] = {"accepted_clusters": run.scan["accepted"] if run.scan else 0,
                                   "approved_insights": approved, "memories": stats["memories"],
                                   "memories_summarised": stats["summarised"],
                                   "share_summarised": round(stats["summarised"] / stats["memories"], 4),
                                   "outcomes": {s: run.count(s) for s in sorted({o.status for o in run.outcomes})},
                                   "seconds": round(time.perf_counter() - t, 1)}
        if args.llm:  # what a user running a model pays and gets (issue 28 item 4)
            tried = [o for o in run.outcomes if o.status in ("proposed", "ungrounded", "failed", "no_pattern")]
            calls = sum(o.calls for o in run.outcomes)
            report["consolidation"].update(
                synthesizer={"base_url": args.llm, "model": args.model}, llm_calls=calls,
                seconds_per_call=round(report["consolidation"]["seconds"] / calls, 1) if calls else None,
                grounded_share=round(run.count("proposed") / len(tried), 4) if tried else None)
        report["insight_titles"] = [r["title"] for r in g.db.run_text(query("retrieval_insight_titles"))]
        report["after"], report["latency_ms"]["after"], per_question["after"] = evaluate(g, asked)
        if args.grid:
            grids["after"] = grid(g, asked)
    if not args.uri:
        stop_bench_server()
    report["recall_at_10"] = {name: {ph: {c: v["recall@10"] for c, v in report[ph][name].items() if isinstance(v, dict)}
                                     for ph in ("before", "after")} for name in VARIANTS}
    vb, db_, da = (report["recall_at_10"]["vector"]["before"], report["recall_at_10"]["default"]["before"],
                   report["recall_at_10"]["default"]["after"])
    cats = [c for c in vb if c != "adversarial"]
    report["targets"] = {
        "before_default_minus_vector": {c: round(db_[c] - vb[c], 4) for c in cats},
        "after_default_multi_hop_minus_vector_before (>= 0.10)": round(da["multi-hop"] - vb["multi-hop"], 4),
        "after_default_overall_minus_default_before (>= 0.03)": round(da["overall"] - db_["overall"], 4),
        "after_minus_before_default_per_category (>= 0)": {c: round(da[c] - db_[c], 4) for c in db_},
        "latency_p95_ms_default_after": report["latency_ms"]["after"]["default"]["p95"],
    }
    if grids:
        report["grid_recall_at_10_overall"] = {ph: {f"kw={c[0]} graph={c[1]}": round(
            sum(r["recall@10"] for r in rows) / len(rows), 4) for c, rows in grids[ph].items()} for ph in grids}
        report["grid_recall_at_10"] = {ph: {f"kw={c[0]} graph={c[1]}": {
            cat: v["recall@10"] for cat, v in summarise(rows, asked).items()} for c, rows in grids[ph].items()}
            for ph in grids}
        report["split"] = split(asked, grids, per_question)
    report["uptime"] = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    results.parent.mkdir(exist_ok=True)
    results.write_text(json.dumps(report, indent=2, default=str) + "\n")
    print(f"{len(memories)} memories, {len(used)} co-access questions, {len(asked)} asked; "
          f"consolidation: {report['consolidation']}")
    print(f"{'variant':10} {'phase':6} " + " ".join(f"{c:>12}" for c in ["overall", *CATEGORIES.values()]))
    for phase in ("before", "after"):
        for name in VARIANTS:
            cells = [report[phase][name].get(c, {}).get("recall@10") for c in ["overall", *CATEGORIES.values()]]
            print(f"{name:10} {phase:6} " + " ".join(f"{'-' if v is None else f'{v:.3f}':>12}" for v in cells))
    print("recall@10 shown; targets:", json.dumps(report["targets"]), "| uptime:", report["uptime"])
    if "split" in report:
        print("split:", json.dumps(report["split"]))


if __name__ == "__main__":
    main()
