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

per question category (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial)
for vector, keyword, hybrid (all plain) and insight-aware hybrid (insights grouped; k counts
every memory shown, nested members included). Queries are scoped to the conversation.

    .venv/bin/python bench/retrieval.py [--seed 9] [--uri bolt://...]

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
from graphcons.core.config import Config, Neo4jConfig  # noqa: E402
from graphcons.store.admission import admit  # noqa: E402

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "locomo-dev.json"
RESULTS = Path(__file__).resolve().parent / "results" / "retrieval.json"
NOW = datetime(2026, 1, 15, 12, 0, tzinfo=timezone.utc)
VARIANTS = {  # name: (mode, insights)
    "vector": ("vector", "plain"),
    "keyword": ("keyword", "plain"),
    "hybrid": ("hybrid", "plain"),
    "hybrid+insights": ("hybrid", "group"),
}
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


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


def evaluate(g: Graphcons, questions: list[dict]) -> dict:
    out = {}
    for name, (mode, insights) in VARIANTS.items():
        per_cat: dict[str, list] = defaultdict(list)
        short = via_members = found_total = 0
        started = time.perf_counter()
        for q in questions:
            row = {}
            for k in (5, 10):
                hits = g.retrieve(q["question"], k=k, namespace=q["namespace"], mode=mode, insights=insights,
                                  record=False)
                mems = shown(hits)
                short += len(mems) < k
                direct = {s for m, nested in mems if not nested and m.kind != "insight" for s in m.sources}
                nested = {s for m, nested in mems if nested for s in m.sources}
                found = set(q["evidence"]) & (direct | nested)
                row[f"recall@{k}"] = len(found) / len(q["evidence"])
                if k == 10:
                    row["full@10"] = float(found == set(q["evidence"]))
                    via_members += len(found - direct)
                    found_total += len(found)
            per_cat[CATEGORIES[q["category"]]].append(row)
            per_cat["all"].append(row)
        elapsed = time.perf_counter() - started
        out[name] = {
            cat: {"n": len(rows), **{m: round(sum(r[m] for r in rows) / len(rows), 4)
                                     for m in ("recall@5", "recall@10", "full@10")}}
            for cat, rows in sorted(per_cat.items())
        }
        out[name]["_short_lists"] = short
        out[name]["_evidence_found_only_via_insight_members@10"] = via_members
        out[name]["_evidence_found@10"] = found_total
        out[name]["_ms_per_query"] = round(1000 * elapsed / (2 * len(questions)), 1)
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
    args = ap.parse_args()
    load_before = os.getloadavg()
    if args.uri:
        cfg = Config(neo4j=Neo4jConfig(uri=args.uri, password=os.environ.get("NEO4J_PASSWORD") or None))
    else:
        cfg = bench_server(heap="1g", pagecache="512m")
    cfg.consolidation.enabled = True
    cfg.consolidation.dry_run = False
    cfg.consolidation.daily_cap = 10_000  # approve every cluster the gate accepts, not the first 20
    memories, questions = load()
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
    with Graphcons(cfg) as g:
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
        report["before"] = evaluate(g, asked)
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
                                   "seconds": round(time.perf_counter() - t, 1)}
        report["after"] = evaluate(g, asked)
    if not args.uri:
        stop_bench_server()
    base = report["before"]["vector"]
    best = report["after"]["hybrid+insights"]
    report["targets"] = {
        "multi_hop_recall@10_gain_vs_plain_vector_before": round(best["multi-hop"]["recall@10"]
                                                                 - base["multi-hop"]["recall@10"], 4),
        "overall_recall@10_change": round(best["all"]["recall@10"] - base["all"]["recall@10"], 4),
    }
    report["uptime"] = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2, default=str) + "\n")
    print(f"{len(memories)} memories, {len(used)} co-access questions, {len(asked)} asked; "
          f"consolidation: {report['consolidation']}")
    print(f"{'variant':18} {'phase':6} " + " ".join(f"{c:>12}" for c in ["all", *CATEGORIES.values()]))
    for phase in ("before", "after"):
        for name in VARIANTS:
            cells = [report[phase][name].get(c, {}).get("recall@10") for c in ["all", *CATEGORIES.values()]]
            print(f"{name:18} {phase:6} " + " ".join(f"{'-' if v is None else f'{v:.3f}':>12}" for v in cells))
    print("recall@10 shown; targets:", report["targets"], "| uptime:", report["uptime"])


if __name__ == "__main__":
    main()
