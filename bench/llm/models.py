"""Real models in the loop (issue 31): reflection, synthesis and the llm merge verifier with a
model served over the OpenAI protocol (by default the local llama.cpp server of
../shared/MODELS.md: Qwen2.5-Coder-1.5B-Instruct Q4_K_M at http://127.0.0.1:8080/v1).

Three tasks on the dev data in ../shared/data, run round-robin (one reflection, one synthesis,
a few verifier pairs, again) so that a run cut short still reports on all three; the results
file is rewritten after every step:

- reflection: the 15 MemoryBank users (their own chat turns are their memories, as in
  bench/llm/reflection.py); the production path without storage: profiles.reflect.select
  (15 of the 50 newest), ReflectionPrompt, the OpenAI synthesizer, reflection_grounding.ground_reflection;
- synthesis: the accepted clusters of one LoCoMo dev conversation (each speaker's observations
  are memories with subject = speaker), admitted into this Neo4j in a fresh namespace, scanned
  (GDS), each accepted cluster synthesized by consolidation.synthesize_cluster (grounding guard,
  proposal) in key order, the first --clusters of them;
- verifier: labelled dev-half pairs of MRPC / STS-B / SICK (bench/merge/data.py) that reach the
  verifier stage (the merge job's own score_pair: seed score over the threshold, no difference
  in meaning, not kept apart), the first --pairs by a fixed hash order, taken in turn from the
  three sets; each decided by the llm verifier and, as the baseline on the same pairs, by the
  rules verifier. Precision / recall of `duplicate` at both operating points (propose: the
  outcome is a merge proposal; auto_apply: the pair would be applied at once).

Reflection (issue 40): each call stores the memories it showed, the model's raw answer and its
parsed output (before any guard), the answers of the support checks, and per statement written:
cited ids, coverage (grounding.support), verdict, copy flag, check quotes, kept / dropped /
folded with the reason. The headline figures are the model's own (every statement written is
the denominator: supported by its own citations, copies of one memory, chat), then what the
guard kept, then (issue 48, bench/llm/reading.py) the kept statements per reader's class
(`reader_classes`) and the agreement of those classes with the hand labels (`label_agreement`).
`--rescore FILE` recomputes all of it from the stored file (no model call; the stored check
answers are replayed, a statement without one is judged on its words), re-grounds each synthesis
from the model's stored raw answer with the current guard, and counts its facts dated from another
member and its confirmations without support (`synthesis.lines`; `lines_before_issue_48` keeps
the figures of the insights as first stored). The offline reflector runs on all 15 users beside it
(`offline_reflection`: statements citing a memory that shares no content word with them).
Synthesis and verifier: calls, seconds per call, grounded_share (verifier: the share of pairs
given a verdict), claims per output, citation precision (the share of (claim, cited member)
pairs where the member holds at least one of the claim's content words; strict: >= half), and
per claim its coverage and the member it only restates.

    GRAPHCONS_NEO4J_BOLT_PORT=... python -m bench.llm.models [--users 15 --clusters 8 --pairs 60]
    python -m bench.llm.models --rescore bench/llm/results/llm.json [--synthesis-from F] [--verifier-from F]

Every output that was not grounded is kept with its raw answer in the results (`failures`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.merge.data import load_all  # noqa: E402
from bench.merge.train import memory as merge_memory  # noqa: E402
from bench.llm.reflection import memories as memorybank_memories  # noqa: E402
from graphcons.profiles.reflection_grounding import ground_reflection  # noqa: E402
from graphcons.profiles.reflect import select  # noqa: E402
from graphcons.consolidation.grounding import SUPPORTED_COVERAGE, support  # noqa: E402
from graphcons.consolidation.synthesis.models import Reflection  # noqa: E402
from graphcons.core.text import content_terms  # noqa: E402
from graphcons.consolidation.synthesis.openai import OpenAISynthesizer  # noqa: E402
from graphcons.consolidation.synthesis.prompt import ReflectionPrompt, Shown  # noqa: E402
from graphcons.core.config import LLMConfig, load_config  # noqa: E402
from graphcons.core.errors import ProviderError, Ungrounded  # noqa: E402
from graphcons.core.llm import LLMClient  # noqa: E402
from graphcons.maintenance.merge.score import DUPLICATE, score_pair  # noqa: E402
from graphcons.maintenance.merge.verify import RulesVerifier  # noqa: E402
from graphcons.maintenance.merge.verify_llm import LLMVerifier  # noqa: E402
from bench.llm.reading import guard_class, label_agreement, line_figures, reader_classes, reground  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("GRAPHCONS_DEV_DATA") or REPO.parent.parent / "shared" / "data")
if not DATA.is_dir():
    DATA = Path("/work/shared/data")
K = 15


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def precision(statements: list[tuple[str, list[str]]], texts: dict[str, str], ignore: set[str]) -> dict:
    """Citation precision over (statement, cited ids): lenient (>= 1 shared content word) and strict (>= half).
    Also per statement, `covered`: its citations together hold >= half of its words. A statement that
    joins three memories ("likes climbing, landscapes and yoga") fails strict on each citation while
    every part is cited: coverage is the strict figure for what a reflection is for."""
    lenient = strict = n = covered = 0
    for statement, ids in statements:
        words = content_terms(statement) - ignore
        union: set[str] = set()
        for i in ids:
            n += 1
            have = content_terms(texts.get(i, "")) & words
            union |= have
            lenient += bool(have)
            strict += bool(words) and len(have) >= 0.5 * len(words)
        covered += bool(words) and len(union) >= 0.5 * len(words)
    return {"cited": n, "lenient": lenient, "strict": strict, "statements": len(statements), "covered": covered}


def share(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


# -- reflection ------------------------------------------------------------------------------------
def shown_memories(user: str, data: dict) -> list[dict]:
    """The memories one reflection shows (select: 15 of the 50 newest, oldest first as reflect() does)."""
    from graphcons.core.embedders.minilm import MiniLMEmbedder

    rows = memorybank_memories(user, data)
    emb = shown_memories.__dict__.setdefault("emb", MiniLMEmbedder())
    for r, v in zip(rows, emb.embed([r["content"] for r in rows])):
        r["embedding"] = v
    shown = sorted(select(rows, K), key=lambda r: (r["created_at"], r["id"]))
    return [{"id": r["id"], "text": r["content"], "created_at": r["created_at"]} for r in shown]


def score_reflection(out: dict, check=None) -> None:
    """Judge the stored model output (`output`) against the stored shown memories: every statement
    written, with its citations, coverage, verdict, copy flag and outcome (the production guard,
    grounding.ground_reflection). `check` answers the support checks: live (the model) or, on
    --rescore, the answers stored in `checks`."""
    texts = {m["id"]: m["text"] for m in out["shown_memories"]}
    answers = out.setdefault("checks", {})

    def replay(statement: str, cited: dict[str, str]) -> list[tuple[str, str]] | None:
        if statement not in answers:
            if check is None:  # a rescore: no stored answer for this statement, so no check (the words decide)
                return None
            t0 = time.perf_counter()
            answers[statement] = {"answer": [list(a) for a in check(statement, cited)],
                                  "seconds": round(time.perf_counter() - t0, 1), "asked": True}
        return [tuple(a) for a in answers[statement]["answer"]]

    for key in ("status", "error", "statements", "kept", "report"):
        out.pop(key, None)
    try:
        g = ground_reflection(Reflection.model_validate(out["output"]), list(texts), max_statements=8, texts=texts,
                              subject=out["user"], check=replay if (check or answers) else None)
    except Ungrounded as exc:
        out.update(status="ungrounded", error=str(exc))
        g = None
    judged = g.judged if g else _judged_when_rejected(out, texts)
    out["statements"] = [{"category": j["category"], "statement": j["statement"], "cited": j["memory_ids"],
                          "coverage": j["coverage"], "verdict": j["verdict"], "copy_of": j["restated"],
                          "check": j["check"], "quotes": j["quotes"], "outcome": j["outcome"], "reason": j["reason"],
                          "kept_ids": j["kept_ids"], "chat_removed": j["chat_removed"]} for j in (v.to_dict() for v in judged)]
    for row in out["statements"]:
        row["guard_class"] = guard_class(row)
    if g:
        out.update(status="grounded", kept=g.reflection.model_dump(), report=g.report())


def _judged_when_rejected(out: dict, texts: dict[str, str]) -> list:
    """Every statement's support when the guard rejected the whole output (none kept)."""
    from graphcons.consolidation.grounding import keep_shown
    from graphcons.profiles.reflection_grounding import _judge, said_by_entity

    ignore = content_terms(out["user"])
    refl = Reflection.model_validate(out["output"])
    answers = out.get("checks", {})
    replay = (lambda st, cited: [tuple(a) for a in answers[st]["answer"]] if st in answers else None)
    said = {i: said_by_entity(t, "user") for i, t in texts.items()}  # MemoryBank memories are the user's turns
    return [_judge(c, s, keep_shown(s.memory_ids, set(texts), []), texts, ignore, replay, said) for c, s in refl.statements()]


def reflection_job(synth: OpenAISynthesizer, user: str, data: dict, checks: bool) -> dict:
    shown = shown_memories(user, data)
    prompt = ReflectionPrompt(members=[Shown(id=m["id"], title="", content=m["text"], created_at=m["created_at"])
                                       for m in shown], subject=user, namespace="bench")
    out: dict = {"user": user, "shown": len(shown), "shown_memories": [{"id": m["id"], "text": m["text"]} for m in shown]}
    t0 = time.perf_counter()
    try:
        res = synth.reflect(prompt)
        out["calls"] = res.calls
    except ProviderError as exc:
        out.update(status="failed", error=str(exc), calls=getattr(exc, "calls", 1), raw=synth.llm.raw)
        out["seconds"] = round(time.perf_counter() - t0, 1)
        return out
    out["seconds"] = round(time.perf_counter() - t0, 1)
    out["raw"] = list(synth.llm.raw)
    out["output"] = res.reflection.model_dump()  # the model's answer, ids mapped back, before any guard
    synth.check_calls = 0
    t1 = time.perf_counter()
    score_reflection(out, (lambda st, cited: synth.check_support(st, cited, subject=user, namespace="bench"))
                     if checks else None)
    out["check_calls"], out["check_seconds"] = synth.check_calls, round(time.perf_counter() - t1, 1)
    return out


def offline_reflection(users: list[str], mb: dict) -> dict:
    """The offline reflector on the same shown memories: statements citing a memory that shares no content word."""
    from graphcons.consolidation.grounding import claim_words, supports
    from graphcons.profiles.offline_reflection import extract

    runs = []
    for user in users:
        shown = shown_memories(user, mb[user])
        texts = {m["id"]: m["text"] for m in shown}
        refl = extract(ReflectionPrompt(members=[Shown(id=m["id"], title="", content=m["text"],
                                                       created_at=m["created_at"]) for m in shown],
                                        subject=user, namespace="bench"))
        rows = []
        for cat, st in refl.statements():
            words = claim_words(st.statement, content_terms(user))
            rows.append({"category": cat, "statement": st.statement, "cited": st.memory_ids,
                         "sharing_no_word": [i for i in st.memory_ids if not supports(words, texts[i])]})
        runs.append({"user": user, "statements": rows})
    n = sum(len(r["statements"]) for r in runs)
    bad = sum(1 for r in runs for s in r["statements"] if s["sharing_no_word"])
    return {"users": len(runs), "statements": n, "citing_a_memory_sharing_no_word": bad,
            "citations": sum(len(s["cited"]) for r in runs for s in r["statements"]), "runs": runs}


# -- synthesis -------------------------------------------------------------------------------------
def locomo_memories(conv: dict, ns: str) -> list[dict]:
    t0 = datetime(2023, 1, 1, tzinfo=timezone.utc)
    out = []
    for session in sorted(conv["observation"], key=lambda s: int(s.split("_")[1])):
        s = int(session.split("_")[1])
        for speaker, facts in sorted(conv["observation"][session].items()):
            for n, (fact, turn) in enumerate(facts):
                out.append({"id": f"{ns}.{s}.{speaker}.{n}", "content": fact, "namespace": ns, "subject": speaker,
                            "source": str(turn), "kind": "observation",
                            "created_at": t0 + timedelta(days=7 * s, minutes=n)})
    return out


def synthesis_setup(args) -> tuple:
    """Admit the conversation into a fresh namespace, scan it; the accepted clusters in key order."""
    from graphcons.api import Graphcons

    conv = next(c for c in json.loads((DATA / "locomo-dev.json").read_text()) if c["sample_id"] == args.conversation)
    ns = f"bench-llm-{args.conversation}-{int(time.time())}"  # a fresh namespace per run (a bench label, no decision)
    g = Graphcons(load_config())
    g.init()
    mems = locomo_memories(conv, ns)
    for m in mems:
        g.add(m)
    report = g.scan(now=datetime(2024, 1, 1, tzinfo=timezone.utc), namespace=ns)
    accepted = sorted(report.accepted, key=lambda d: d.key)
    return g, {m["id"]: m for m in mems}, accepted, {"namespace": ns, "memories": len(mems),
                                                     "clusters": len(report.decisions), "accepted": len(accepted)}


def synthesis_job(g, synth: OpenAISynthesizer, decision, mems: dict) -> dict:
    from graphcons.consolidation.budget import Budget
    from graphcons.consolidation.consolidate import synthesize_cluster

    cluster = decision.cluster
    out: dict = {"cluster": cluster.key, "members": len(cluster.member_ids)}
    t0 = time.perf_counter()
    o = synthesize_cluster(g.db, g.config, cluster, synthesizer=synth, now=datetime(2024, 1, 1, tzinfo=timezone.utc),
                           budget=Budget(daily_cap=10_000, used_today=0, max_calls=0), force=True)
    out["seconds"] = round(time.perf_counter() - t0, 1)
    out["calls"] = synth.calls
    out["status"] = o.status
    out["raw"] = list(synth.llm.raw)  # the insight call's raw answer(s)
    out["shown_memories"] = [{"id": i, "text": mems[i]["content"]} for i in cluster.member_ids]
    if o.status != "proposed":
        out.update(error=o.reason)
        return out
    p = g.proposal(o.proposal_id)
    insight = p["insight"] if isinstance(p["insight"], dict) else json.loads(p["insight"])
    claims = [(c["statement"], c["member_ids"]) for c in insight["claims"]]
    speakers = set().union(*(content_terms(mems[i]["subject"]) for i in cluster.member_ids))
    out.update(claims=len(claims), cited=len(p.get("cited") or []), grounding=p.get("grounding"),
               citations=precision(claims, {i: mems[i]["content"] for i in cluster.member_ids}, speakers),
               claim_support=claim_support(claims, {i: mems[i]["content"] for i in cluster.member_ids}),
               insight=insight)
    return out


def claim_support(claims: list[tuple[str, list[str]]], texts: dict[str, str]) -> list[dict]:
    """Each claim's coverage by its cited members and the member it only restates (grounding.support)."""
    out = []
    for statement, ids in claims:
        s = support(statement, [texts.get(i, "") for i in ids])
        out.append({"statement": statement, "cited": ids, "coverage": s.coverage, "verdict": s.verdict,
                    "restated": None if s.copy_of is None else ids[s.copy_of]})
    return out


# -- verifier --------------------------------------------------------------------------------------
def verifier_pairs(cfg, n: int) -> list[tuple]:
    """(DevPair, memory a, memory b) of dev-half pairs that reach the verifier stage, by hash order, sets in turn."""
    rules = RulesVerifier()
    per: dict[str, list] = {}
    for name, pairs in load_all(("mrpc", "stsb", "sick")).items():
        keep = []
        for i, dp in sorted(enumerate(pairs), key=lambda x: hashlib.sha256(x[1].digest).hexdigest()):
            if dp.split != "dev":
                continue
            a, b = merge_memory(f"{name}-{i:05d}-a", dp.a), merge_memory(f"{name}-{i:05d}-b", dp.b)
            p = score_pair(a, b, dp.cosine, cfg.merge, rules)
            if p.p_duplicate is not None:  # reached the verifier
                keep.append((dp, a, b))
            if len(keep) >= n:
                break
        per[name] = keep
    out = []
    for i in range(n):
        for name in ("mrpc", "stsb", "sick"):
            if i < len(per[name]):
                out.append(per[name][i])
    return out[:n]


def verifier_job(cfg, llm: LLMVerifier, item: tuple) -> dict:
    dp, a, b = item
    base = score_pair(a, b, dp.cosine, cfg.merge, RulesVerifier())
    t0 = time.perf_counter()
    before = llm.calls
    p = score_pair(a, b, dp.cosine, cfg.merge, llm)
    return {"data": dp.data, "label": dp.label, "a": dp.a, "b": dp.b, "seconds": round(time.perf_counter() - t0, 1),
            "calls": llm.calls - before, "verdict": p.verdict, "reason": p.verdict_reason, "refused": p.refused,
            "pending": p.pending, "outcome": p.outcome, "auto_apply_ok": p.auto_apply_ok,
            "p_rules": p.p_duplicate, "rules_outcome": base.outcome, "rules_auto_apply_ok": base.auto_apply_ok}


def pr(rows: list[dict], predicted) -> dict:
    tp = sum(1 for r in rows if predicted(r) and r["label"])
    fp = sum(1 for r in rows if predicted(r) and not r["label"])
    fn = sum(1 for r in rows if not predicted(r) and r["label"])
    return {"precision": share(tp, tp + fp), "recall": share(tp, tp + fn), "tp": tp, "fp": fp, "fn": fn}


# -- summaries -------------------------------------------------------------------------------------
def per_call(rows: list[dict]) -> dict:
    calls = sum(r.get("calls", 0) for r in rows)
    secs = sum(r.get("seconds", 0) for r in rows)
    return {"calls": calls, "seconds": round(secs, 1), "seconds_per_call": share(secs, calls) and round(secs / calls, 1)}


def cites(rows: list[dict], key: str = "citations", prefix: str = "") -> dict:
    c = {k: sum(r.get(key, {}).get(k, 0) for r in rows) for k in ("cited", "lenient", "strict", "statements", "covered")}
    return {f"{prefix}citation_precision": share(c["lenient"], c["cited"]),
            f"{prefix}citation_precision_strict": share(c["strict"], c["cited"]), f"{prefix}citations": c["cited"],
            f"{prefix}statement_coverage_strict": share(c["covered"], c["statements"])}


def reflection_figures(runs: list[dict]) -> dict:
    """The model's own figures first (every statement it wrote, before any guard), then the guard's."""
    parsed = [r for r in runs if "output" in r]
    written = [s for r in parsed for s in r["statements"]]
    kept = [s for s in written if s["outcome"] == "kept"]
    n = len(written)

    def count(rows, pred) -> dict:
        k = sum(1 for s in rows if pred(s))
        return {"n": k, "of": len(rows), "share": share(k, len(rows))}

    own_support = lambda s: s["verdict"] == "supported"  # noqa: E731 - its own citations, lexical check
    copy = lambda s: s["copy_of"] is not None  # noqa: E731
    chat = lambda s: s["reason"].startswith("a chat line") or bool(s["chat_removed"])  # noqa: E731
    reasons: dict[str, int] = {}
    for s in written:
        if s["outcome"] != "kept":
            key = s["reason"].split(" (")[0].split(";")[0].split(":")[0]
            key = ("states more than its cited memories (coverage under 1, not a copy)"
                   if s["reason"].startswith("it states more") else
                   "unsupported (coverage below the threshold)" if "content words" in s["reason"] else key)
            reasons[key] = reasons.get(key, 0) + 1
    return {
        "users": len(runs), "parsed": len(parsed), "failed": len(runs) - len(parsed),
        "reader_classes": reader_classes(runs), "label_agreement": label_agreement(runs),
        "model_own": {
            "statements_written": n,
            "supported_by_own_citations": count(written, own_support),
            "copies_of_one_memory": count(written, copy),
            "supported_and_not_a_copy": count(written, lambda s: own_support(s) and not copy(s)),
            "below_half_coverage": count(written, lambda s: s["coverage"] is not None and s["coverage"] < 0.5),
            "with_chat": count(written, chat),
            "note": f"of every statement the model wrote (denominator: statements written, all users parsed); "
                    f"supported = its own cited shown memories hold >= {SUPPORTED_COVERAGE:.0%} of its content "
                    "words (grounding.support); a copy = one cited memory holds >= 80% and no other cited one "
                    "supports it"},
        "guard": {
            "kept": count(written, lambda s: s["outcome"] == "kept"),
            "kept_restated": count(kept, copy),
            "kept_by_model_quote": count(kept, lambda s: s["check"] == "quoted"),
            "kept_below_half_without_quote": count(
                kept, lambda s: (s["coverage"] or 0) < 0.5 and s["check"] != "quoted"),
            "kept_chat": count(kept, lambda s: bool(s["chat_removed"])),
            "duplicates_folded": sum(1 for s in written if s["outcome"] == "folded"),
            "dropped_by_reason": dict(sorted(reasons.items())),
            "support_checks": {"asked": sum(r.get("check_calls", 0) for r in parsed),
                               "quoted_real_words": sum(1 for s in written if s["check"] == "quoted"),
                               "no_real_quote": sum(1 for s in written if s["check"] == "no real quote"),
                               "quote_does_not_hold_it": sum(1 for s in written if s["check"] == "quote does not hold it"),
                               "replayed_answers": sum(len(r.get("checks", {})) for r in parsed)},
            "users_with_a_kept_statement": sum(1 for r in parsed if any(s["outcome"] == "kept" for s in r["statements"]))},
        **per_call(runs),
        "check_seconds": round(sum(r.get("check_seconds", 0) for r in parsed), 1),
    }


def summarise(res: dict) -> None:
    refl = res["reflection"]["runs"]
    if refl:
        res["reflection"].update(reflection_figures(refl))
    syn = res["synthesis"]["runs"]
    if syn:
        ok = [r for r in syn if r["status"] == "proposed"]
        res["synthesis"].update(
            attempted=len(syn), grounded=len(ok), grounded_share=share(len(ok), len(syn)),
            claims_per_output=share(sum(r["claims"] for r in ok), len(ok)), **per_call(syn), **cites(ok),
            statuses={k: sum(1 for r in syn if r["status"] == k) for k in sorted({r["status"] for r in syn})},
            rejected_as_copies=sum(1 for r in syn if "only restates one member" in (r.get("error") or "")),
            claims_restating_one_member={"n": sum(1 for r in ok for c in r.get("claim_support", []) if c["restated"]),
                                         "of": sum(len(r.get("claim_support", [])) for r in ok)},
            target=">= 80% of attempted clusters grounded and proposed; citation precision >= 0.8")
    ver = res["verifier"]["runs"]
    if ver:
        judged = [r for r in ver if r["verdict"]]
        res["verifier"].update(
            pairs=len(ver), judged=len(judged), grounded_share=share(len(judged), len(ver)),
            labels={"duplicate": sum(r["label"] for r in ver), "not": sum(not r["label"] for r in ver)},
            refused=sum(1 for r in ver if r["refused"]), **per_call(ver),
            llm={"propose": pr(ver, lambda r: r["outcome"] == DUPLICATE),
                 "auto_apply": pr(ver, lambda r: r["auto_apply_ok"]),
                 "raw_label_duplicate": pr(ver, lambda r: r["verdict"] == "duplicate")},
            rules_baseline={"propose": pr(ver, lambda r: r["rules_outcome"] == DUPLICATE),
                            "auto_apply": pr(ver, lambda r: r["rules_auto_apply_ok"])},
            conflicts_on_duplicates=sum(1 for r in ver if r["outcome"] == "conflict" and r["label"]))
        for point in ("propose", "auto_apply"):
            res["verifier"][point] = res["verifier"]["llm"][point]


def section_of(path: Path, task: str) -> dict:
    """One task's runs from another results file, with that run's command, code and load."""
    other = json.loads(path.read_text())
    return {"runs": other[task]["runs"], "setup": other[task].get("setup"), "command": other["command"],
            "code": other.get("code"), "started": other.get("started"), "seconds_of_run": other.get("seconds"),
            "uptime_before": other.get("uptime_before"), "uptime_after": other.get("uptime_after")}


def rescore(path: Path, verifier_from: str | None, synthesis_from: str | None = None) -> None:
    """Recompute the citation figures of a results file from the outputs it stores (no model call),
    and optionally take its verifier section from another run (a longer verifier-only run)."""
    res = json.loads(path.read_text())
    res["offline_reflection"] = offline_reflection(sorted(mb := json.loads((DATA / "memorybank_en.json").read_text())),
                                                   mb)
    for r in res["reflection"]["runs"]:
        if "output" in r:  # judged again from the stored shown memories, output and check answers
            score_reflection(r)
    if synthesis_from:
        res["synthesis"] = section_of(Path(synthesis_from), "synthesis")
    ns = res["synthesis"].get("setup", {}).get("namespace")
    if ns:
        conv = ns.removeprefix("bench-llm-").rsplit("-", 1)[0]
        data = next(c for c in json.loads((DATA / "locomo-dev.json").read_text()) if c["sample_id"] == conv)
        mems = {m["id"]: m for m in locomo_memories(data, ns)}
        if "lines_before_issue_48" not in res["synthesis"]:  # the stored insights as the earlier guard left them
            res["synthesis"]["lines_before_issue_48"] = {
                k: v for k, v in line_figures(res["synthesis"]["runs"], mems).items() if k != "dropped_or_folded"}
        for r in res["synthesis"]["runs"]:
            if r.get("raw") and r.get("shown_memories"):  # the current guard over the model's stored answer
                reground(r, mems)
            if r["status"] == "proposed":
                claims = [(c["statement"], c["member_ids"]) for c in r["insight"]["claims"]]
                speakers = set().union(*(content_terms(mems[i]["subject"]) for _, ids in claims for i in ids))
                r["citations"] = precision(claims, {i: m["content"] for i, m in mems.items()}, speakers)
                r["claim_support"] = claim_support(claims, {i: m["content"] for i, m in mems.items()})
        res["synthesis"]["lines"] = line_figures(res["synthesis"]["runs"], mems)
    if verifier_from:
        res["verifier"] = section_of(Path(verifier_from), "verifier")
    summarise(res)
    res["rescored"] = ("python -m bench.llm.models --rescore " + str(path.name)
                       + (f" --synthesis-from {synthesis_from}" if synthesis_from else "")
                       + (f" --verifier-from {verifier_from}" if verifier_from else ""))
    path.write_text(json.dumps(res, indent=2, default=str) + "\n")
    print(json.dumps({k: {kk: vv for kk, vv in res[k].items() if kk != "runs"}
                      for k in ("reflection", "offline_reflection", "synthesis", "verifier") if k in res}, indent=2))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rescore", metavar="FILE", help="recompute FILE's figures from its stored outputs; no model call")
    ap.add_argument("--verifier-from", metavar="FILE", help="with --rescore: take the verifier runs from FILE")
    ap.add_argument("--synthesis-from", metavar="FILE", help="with --rescore: take the synthesis runs from FILE")
    ap.add_argument("--base-url", default="http://127.0.0.1:8080/v1")
    ap.add_argument("--model", default="local")
    ap.add_argument("--mode", default="TOOLS")
    ap.add_argument("--timeout", type=float, default=900.0)
    ap.add_argument("--context-tokens", type=int, default=4096)
    ap.add_argument("--users", type=int, default=15)
    ap.add_argument("--clusters", type=int, default=8)
    ap.add_argument("--pairs", type=int, default=60)
    ap.add_argument("--pairs-per-round", type=int, default=2)
    ap.add_argument("--synthesis-every", type=int, default=2, help="a synthesis every N rounds (one reflection each)")
    ap.add_argument("--conversation", default="conv-26")
    ap.add_argument("--no-checks", action="store_true", help="no support-check call for a low-coverage statement")
    ap.add_argument("--out", default=str(REPO / "bench" / "llm" / "results" / "llm.json"))
    ap.add_argument("--resume", action="store_true",
                    help="keep the reflection and synthesis runs already in --out and do only the rest "
                         "(a run cut short goes on where it stopped; the earlier runs' code is kept in 'resumed')")
    args = ap.parse_args()
    if args.rescore:
        return rescore(Path(args.rescore), args.verifier_from, args.synthesis_from)
    llm_cfg = LLMConfig(provider="openai", base_url=args.base_url, model=args.model, instructor_mode=args.mode,
                        timeout_s=args.timeout, max_retries=0, reasks=1, context_tokens=args.context_tokens)
    cfg = load_config()
    cfg.llm = llm_cfg
    cfg.merge.verifier = "llm"
    synth = OpenAISynthesizer(llm_cfg)
    verifier = LLMVerifier(cfg, client=LLMClient(llm_cfg))
    t0 = time.perf_counter()
    res: dict = {"command": "python -m bench.llm.models " + " ".join(sys.argv[1:]),
                 "code": subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                                        capture_output=True, text=True).stdout.strip(),
                 "endpoint": {"base_url": args.base_url, "model": args.model, "mode": args.mode},
                 "started": datetime.now(timezone.utc).isoformat(timespec="seconds"), "uptime_before": uptime(),
                 "note": "2 shared cores loaded by other sessions: seconds are indicative; quality figures matter",
                 "reflection": {"runs": []}, "synthesis": {"runs": []}, "verifier": {"runs": []}}
    path = Path(args.out)
    done_users: set[str] = set()
    done_clusters: set[str] = set()
    if args.resume and path.exists():
        before = json.loads(path.read_text())
        res["resumed"] = {"command": before.get("command"), "code": before.get("code"), "started": before.get("started")}
        for task, key, done in (("reflection", "user", done_users), ("synthesis", "cluster", done_clusters)):
            runs = before.get(task, {}).get("runs", [])
            res[task]["runs"] = runs
            done.update(r[key] for r in runs)

    def save() -> None:
        summarise(res)
        res["seconds"] = round(time.perf_counter() - t0, 1)
        res["uptime_after"] = uptime()
        path.write_text(json.dumps(res, indent=2, default=str) + "\n")

    mb = json.loads((DATA / "memorybank_en.json").read_text())
    users = [u for u in sorted(mb)[: args.users] if u not in done_users]
    res["offline_reflection"] = offline_reflection(sorted(mb), mb)  # no model: every user
    g, mems, accepted = None, {}, []
    if args.clusters:  # no Neo4j needed for reflection and the verifier alone
        g, mems, accepted, setup = synthesis_setup(args)
        res["synthesis"]["setup"] = setup
        accepted = [d for d in accepted[: args.clusters] if d.cluster.key not in done_clusters]
    pairs = verifier_pairs(cfg, args.pairs) if args.pairs else []  # (embeds the merge data sets once)
    res["verifier"]["setup"] = {"pairs": len(pairs), "split": "dev", "order": "sha256 of the pair, sets in turn"}
    save()
    rounds = max(len(users), len(accepted) * args.synthesis_every, -(-len(pairs) // args.pairs_per_round))
    for i in range(rounds):
        if i < len(users):
            res["reflection"]["runs"].append(reflection_job(synth, users[i], mb[users[i]], not args.no_checks))
            print(f"reflection {users[i]}: {res['reflection']['runs'][-1]['status']}", flush=True)
            save()
        c = i // args.synthesis_every
        if i % args.synthesis_every == 0 and c < len(accepted):
            res["synthesis"]["runs"].append(synthesis_job(g, synth, accepted[c], mems))
            print(f"synthesis {accepted[c].key}: {res['synthesis']['runs'][-1]['status']}", flush=True)
            save()
        for item in pairs[i * args.pairs_per_round:(i + 1) * args.pairs_per_round]:
            res["verifier"]["runs"].append(verifier_job(cfg, verifier, item))
            r = res["verifier"]["runs"][-1]
            print(f"verifier {r['data']} label={r['label']}: {r['verdict']} -> {r['outcome']}", flush=True)
            save()
    if g is not None:
        g.close()
    print(json.dumps({k: {kk: vv for kk, vv in res[k].items() if kk != "runs"}
                      for k in ("reflection", "offline_reflection", "synthesis", "verifier") if k in res}, indent=2))


if __name__ == "__main__":
    main()
