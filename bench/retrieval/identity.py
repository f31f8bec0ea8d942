"""Are retrieve's rankings and context's blocks unchanged by a refactor? (issue 46)

On the four LoCoMo dev conversations (as bench/retrieval/answers.py stores them), before and after a
consolidation pass (offline, every proposal approved), every 4th question is asked of
`retrieve(k=10)` in each mode (hybrid with digests, hybrid grouped, vector, keyword) and of
`context(q, 150 | 300)`, with record=False, by this checkout's code and by another commit's (a git
worktree, run in a subprocess against the same store). The answers are compared as JSON text:
`identical` is true when every ranking and every block is byte-identical; `same_order_by_call` compares
only what each call decides (the ids shown in order, with scores and carried members; the ids a block
cites), so a new field on a memory does not hide an unchanged ranking. Where a change alters the
blocks on purpose, `answer_recall` says what it is worth at equal words: the share of each question's
answer words in its block (bench/retrieval/answers.py's measure), by budget and category, both sides.

    python -m bench.retrieval.identity --against b3b9985 [--uri bolt://...]

Without --uri it uses the throwaway bench server (bench/server.py). Saves
bench/retrieval/results/recall_identity.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "retrieval" / "results" / "recall_identity.json"
CALLS = (("retrieve", {"mode": "hybrid", "insights": "digest"}), ("retrieve", {"mode": "hybrid", "insights": "group"}),
         ("retrieve", {"mode": "vector"}), ("retrieve", {"mode": "keyword"}), ("context", {"budget_words": 150}),
         ("context", {"budget_words": 300}))


def _plain(value):
    """A hit of either shape (a dict before issue 46, a typed Hit after) as JSON-ready data."""
    if hasattr(value, "to_dict"):
        value = value.to_dict()
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "id") and hasattr(value, "kind"):  # a ranking head that was never hydrated
        return {"id": value.id}
    return value


def dump(uri: str, password: str, questions: Path, out: Path) -> None:
    """Ask every question with the code on sys.path (this checkout or a worktree's)."""
    from graphcons.api import Graphcons
    from graphcons.core.config import Config, Neo4jConfig
    from graphcons.core.embedders import make_embedder

    cfg = Config(neo4j=Neo4jConfig(uri=uri, password=password))
    answers = []
    with Graphcons(cfg, embedder=make_embedder(cfg.embedding)) as g:
        for q in json.loads(questions.read_text()):
            for call, kw in CALLS:
                if call == "retrieve":
                    got = [_plain(h) for h in g.retrieve(q["question"], k=10, namespace=q["namespace"], record=False, **kw)]
                else:
                    got = _plain(g.context(q["question"], namespace=q["namespace"], record=False, **kw).to_dict())
                answers.append({"q": q["id"], "call": call, **kw, "answer": got})
    out.write_text(json.dumps(answers, sort_keys=True))


def _run_dump(code: Path, uri: str, password: str, questions: Path, out: Path) -> float:
    t = time.perf_counter()
    env = dict(os.environ, PYTHONPATH=str(code))
    subprocess.run([sys.executable, str(Path(__file__).resolve()), "--dump", str(out), "--questions",
                    str(questions), "--uri", uri, "--password", password], env=env, check=True, cwd=code)
    return round(time.perf_counter() - t, 1)


def _compare(a: Path, b: Path, questions: list[dict]) -> dict:
    ours, theirs = json.loads(a.read_text()), json.loads(b.read_text())
    differ = [f"{x['q']} {x['call']} {x.get('mode', '')} {x.get('insights', '')} {x.get('budget_words', '')}".strip()
              for x, y in zip(ours, theirs) if json.dumps(x, sort_keys=True) != json.dumps(y, sort_keys=True)]
    kinds = sorted({_call(x) for x in ours})
    return {"answers": len(ours), "identical": a.read_bytes() == b.read_bytes(), "differ_count": len(differ),
            "identical_by_call": {k: not any(_call(x) == k and x != y for x, y in zip(ours, theirs)) for k in kinds},
            "same_order_by_call": {k: not any(_call(x) == k and _order(x) != _order(y) for x, y in zip(ours, theirs))
                                   for k in kinds},
            "differ": differ[:20], "sha256": hashlib.sha256(a.read_bytes()).hexdigest()[:16],
            "answer_recall": {"ours": _answer_recall(ours, questions), "theirs": _answer_recall(theirs, questions)}}


def _order(x: dict) -> list:
    """What a ranking or a block decides, apart from how a memory is written out: the ids shown in order
    (with each hit's score and carried members), or the ids a context cites in order."""
    if x["call"] == "context":
        return x["answer"]["ids"]
    return [(h["memory"]["id"], h["score"], [m["memory"]["id"] for m in h.get("members") or []]) for h in x["answer"]]


def _call(x: dict) -> str:
    return " ".join(str(v) for v in (x["call"], x.get("mode"), x.get("insights"), x.get("budget_words")) if v)


def _answer_recall(answers: list[dict], questions: list[dict]) -> dict:
    """The share of each question's answer words in its context block (bench/retrieval/answers.py's
    measure), by budget and category, and overall: what a changed context is worth at equal words."""
    from bench.retrieval.answers import CATEGORIES, answer_words

    by_id = {q["id"]: q for q in questions}
    cells: dict[str, dict[str, list[float]]] = {}
    for x in answers:
        q = by_id[x["q"]]
        gold = answer_words(q["answer"])
        if x["call"] != "context" or not gold:
            continue
        got = len(gold & answer_words(x["answer"]["text"])) / len(gold)
        cell = cells.setdefault(str(x["budget_words"]), {})
        for key in (CATEGORIES[q["category"]], "overall"):
            cell.setdefault(key, []).append(got)
    return {b: {k: round(sum(v) / len(v), 4) for k, v in sorted(c.items())} for b, c in sorted(cells.items())}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", help="the commit to compare with (checked out in a temporary git worktree)")
    ap.add_argument("--uri", default=os.environ.get("NEO4J_URI"))
    ap.add_argument("--password", default=os.environ.get("NEO4J_PASSWORD"))
    ap.add_argument("--every", type=int, default=4, help="ask every n-th dev question")
    ap.add_argument("--out", type=Path, default=RESULTS, help="where the JSON goes")
    ap.add_argument("--dump", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--questions", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.dump:
        return dump(args.uri, args.password, args.questions, args.dump)
    if not args.against:
        ap.error("--against COMMIT is needed")
    sys.path.insert(0, str(ROOT))  # here, not in --dump: a dump imports the graphcons of $PYTHONPATH
    from bench import command
    from bench.retrieval.answers import load
    from bench.server import bench_server
    from graphcons.api import Graphcons
    from graphcons.core.config import Config, Neo4jConfig
    from graphcons.core.embedders import make_embedder
    from graphcons.store.admission import admit

    load_before = os.getloadavg()
    cfg = Config(neo4j=Neo4jConfig(uri=args.uri, password=args.password)) if args.uri else bench_server("1g", "512m")
    cfg.consolidation.enabled, cfg.consolidation.dry_run, cfg.consolidation.daily_cap = True, False, 10_000
    uri, password = cfg.neo4j.uri, cfg.neo4j.resolved_password()
    memories, questions = load()
    report: dict = {"command": command("bench.retrieval.identity"), "against": args.against,
                    "questions": len(questions[::args.every]), "phases": {}}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        base = tmp / "base"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(base), args.against], check=True)
        try:
            (tmp / "q.json").write_text(json.dumps(questions[::args.every]))
            with Graphcons(cfg, embedder=make_embedder(cfg.embedding)) as g:
                with g.db.driver.session(database=cfg.neo4j.database) as session:  # the bench store only
                    session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS").consume()
                g.init()
                by_source: dict[tuple[str, str], list[str]] = {}
                for mem, vec in zip(memories, g.embedder.embed([m["content"] for m in memories])):
                    mid = admit(g.db, g.config, g.embedder, mem, embedding=vec).id
                    by_source.setdefault((mem["namespace"], mem["source"]), []).append(mid)
                for n, q in enumerate(questions):  # the questions not asked were used: co-access, as an agent's
                    ids = sorted({i for turn in q["evidence"] for i in by_source.get((q["namespace"], turn), [])})
                    if n % args.every and len(ids) >= 2:
                        g.access(f"bench-{q['id']}", ids)
                for phase in ("before", "after"):
                    if phase == "after":
                        from bench.retrieval.answers import consolidate_all
                        report["consolidation"] = consolidate_all(g, argparse.Namespace(llm=None))
                    secs = {"ours": _run_dump(ROOT, uri, password, tmp / "q.json", tmp / f"{phase}-ours.json"),
                            "theirs": _run_dump(base, uri, password, tmp / "q.json", tmp / f"{phase}-theirs.json")}
                    report["phases"][phase] = dict(_compare(tmp / f"{phase}-ours.json", tmp / f"{phase}-theirs.json",
                                                            questions[::args.every]), seconds=secs)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=False)
    report["identical"] = all(p["identical"] for p in report["phases"].values())
    report["load"] = {"before": [round(x, 2) for x in load_before], "after": [round(x, 2) for x in os.getloadavg()]}
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))
    sys.exit(0 if report["identical"] else 1)


if __name__ == "__main__":
    main()
