"""Does an agent answer better from graphcons' context after consolidation? (issue 39)

A model reads the block an agent pastes, `context(q, 300)` of the default before and after
consolidation (saved by bench/retrieval/answers.py beside its results: retrieval-reader-contexts.json,
120 questions of the evaluated half: 40 multi-hop, 40 temporal, 40 single-hop), and answers each
question in a short phrase. Scored with LoCoMo's token F1 (task_eval/evaluation.py of the LoCoMo
paper: answers normalised, Porter-stemmed tokens; multi-hop answers split on commas, each gold
part matched by its best predicted part; no exact-match leniency). `reader_f1[phase][category]`
is saved to bench/retrieval/results/reader.json and copied into the retrieval results the contexts came
from. Each answer is stored beside its question, so the figures can be read answer by answer.

    python -m bench.retrieval.reader [--contexts bench/retrieval/results/retrieval-reader-contexts.json]
                                     [--base-url http://127.0.0.1:8080/v1] [--model local]

The reader is the local model of ../shared/MODELS.md by default (Qwen2.5-Coder-1.5B-Instruct,
llama.cpp server), temperature 0, at most 32 answer tokens: seconds per call are indicative only.
`--rescore` recomputes the figures from the stored answers without a model call.

The same reader scores the LongMemEval knowledge-update questions (issue 51): bench/retrieval/longmemeval.py
saves their contexts in longmemeval-reader-contexts.json, and

    python -m bench.retrieval.reader --contexts bench/retrieval/results/longmemeval-reader-contexts.json \
                                     --out bench/retrieval/results/reader-longmemeval.json

copies `reader_f1_knowledge_update[phase]` into longmemeval.json (the contexts file names the key).
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import string
import subprocess
import sys
import time
from collections import Counter, defaultdict
from datetime import datetime, timezone
from pathlib import Path

from nltk.stem import PorterStemmer

RESULTS = Path(__file__).resolve().parent / "results"
STEM = PorterStemmer()
# LoCoMo's QA prompt, with its instruction for dates (a context groups its lines under the day they were
# said, and names the day of a relative expression in brackets; issue 47).
PROMPT = ("{context}\n\nBased on the above context, write an answer in the form of a short phrase for the "
          "following question. Answer with exact words from the context whenever possible. Lines are grouped "
          "under the day they were said; a date in brackets is the day an expression names. Answer a "
          "question about time with a date.\n\n"
          "Question: {question} Short answer:")


def normalize(text: str) -> str:
    """LoCoMo's normalize_answer: no commas, lower case, no punctuation, no articles (nor 'and')."""
    text = text.replace(",", "").lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    return " ".join(re.sub(r"\b(a|an|the|and)\b", " ", text).split())


def f1(prediction: str, gold: str) -> float:
    """Token F1 over Porter-stemmed normalised words."""
    p = [STEM.stem(w) for w in normalize(prediction).split()]
    g = [STEM.stem(w) for w in normalize(gold).split()]
    common = sum((Counter(p) & Counter(g)).values())
    if not common:
        return 0.0
    precision, recall = common / len(p), common / len(g)
    return 2 * precision * recall / (precision + recall)


def score(category: str, prediction: str, gold: str) -> float:
    if category == "multi-hop":  # every gold part, matched by its best predicted part
        parts = [x for x in prediction.split(",") if x.strip()] or [""]
        golds = [x for x in gold.split(",") if x.strip()] or [gold]
        return sum(max(f1(p, g) for p in parts) for g in golds) / len(golds)
    return f1(prediction, gold)


def figures(phases: dict[str, list[dict]]) -> dict:
    out = {}
    for phase, rows in phases.items():
        per: dict[str, list[float]] = defaultdict(list)
        for r in rows:
            if r.get("answer_model") is None:
                continue
            r["f1"] = round(score(r["category"], r["answer_model"], str(r["answer"])), 4)
            per[r["category"]].append(r["f1"])
            per["overall"].append(r["f1"])
        out[phase] = {c: round(sum(v) / len(v), 4) for c, v in sorted(per.items())}
        out[phase]["n"] = len(per["overall"])
    return out


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--contexts", type=Path, default=RESULTS / "retrieval-reader-contexts.json")
    ap.add_argument("--base-url", default="http://127.0.0.1:8080/v1")
    ap.add_argument("--model", default="local")
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--out", type=Path, default=RESULTS / "reader.json")
    ap.add_argument("--rescore", action="store_true", help="recompute --out's figures from its stored answers")
    args = ap.parse_args()
    if args.rescore:
        res = json.loads(args.out.read_text())
        res["reader_f1"] = figures(res["phases"])
        args.out.write_text(json.dumps(res, indent=1) + "\n")
        contexts = Path(res["contexts"])  # where it was written, else beside the results
        copy_to_retrieval(res, json.loads((contexts if contexts.exists() else RESULTS / contexts.name).read_text()),
                          args.out)
        print(json.dumps(res["reader_f1"], indent=1))
        return
    from openai import OpenAI

    src = json.loads(args.contexts.read_text())
    client = OpenAI(base_url=args.base_url, api_key="local", timeout=args.timeout, max_retries=0)
    res: dict = {"command": "python -m bench.retrieval.reader " + " ".join(sys.argv[1:]), "contexts": str(args.contexts),
                 "contexts_command": src["command"], "reader": {"base_url": args.base_url, "model": args.model,
                                                               "temperature": 0, "max_tokens": 32},
                 "started": datetime.now(timezone.utc).isoformat(timespec="seconds"), "uptime_before": uptime(),
                 "phases": {}}
    if args.out.exists():  # a run cut short goes on: answers already stored are kept
        before = json.loads(args.out.read_text())
        if before.get("contexts_command") == src["command"]:
            res["phases"] = before.get("phases", {})
    t0 = time.perf_counter()
    # interleaved (before, after of one question, then the next) so that a run cut short compares like with like
    questions = list(zip(*(src["phases"][ph] for ph in ("before", "after"))))
    # categories in turn (multi-hop, temporal, single-hop, again): a run cut short covers all three
    by_cat: dict[str, list] = defaultdict(list)
    for pair in questions:
        by_cat[pair[0]["category"]].append(pair)
    questions = [p for group in itertools.zip_longest(*by_cat.values()) for p in group if p is not None]
    # the same prompt is answered once: at temperature 0 the model gives it the same answer, and where
    # consolidation left a context unchanged the after phase is its before phase's answer ("reused")
    said = {PROMPT.format(context=r["context"], question=r["question"]): r
            for rows in res["phases"].values() for r in rows if not r.get("reused")}
    for pair in questions:
        for phase, q in zip(("before", "after"), pair):
            rows = res["phases"].setdefault(phase, [])
            if any(r["id"] == q["id"] for r in rows):
                continue
            prompt = PROMPT.format(context=q["context"], question=q["question"])
            if prompt in said:
                rows.append({**q, "answer_model": said[prompt]["answer_model"], "seconds": 0.0, "reused": True,
                             "prompt_tokens": said[prompt].get("prompt_tokens")})
                continue
            t = time.perf_counter()
            reply = client.chat.completions.create(
                model=args.model, temperature=0, max_tokens=32, messages=[{"role": "user", "content": prompt}])
            answer = (reply.choices[0].message.content or "").strip()
            rows.append({**q, "answer_model": answer, "seconds": round(time.perf_counter() - t, 1),
                         "prompt_tokens": getattr(reply.usage, "prompt_tokens", None)})
            said[prompt] = rows[-1]
            res["reader_f1"] = figures(res["phases"])
            res["seconds"], res["uptime_after"] = round(time.perf_counter() - t0, 1), uptime()
            args.out.write_text(json.dumps(res, indent=1) + "\n")
            print(f"{phase} {q['id']} {q['category']}: {answer!r} (gold {q['answer']!r})", flush=True)
    copy_to_retrieval(res, src, args.out)
    print(json.dumps(res["reader_f1"], indent=1))


def copy_to_retrieval(res: dict, src: dict, out: Path) -> None:
    """reader_f1 beside the retrieval figures its contexts came from (the same bench run only)."""
    retrieval = RESULTS / src["results"]
    if retrieval.exists():
        data = json.loads(retrieval.read_text())
        if data.get("command") == src["command"]:
            data[src.get("key", "reader_f1")] = {**res["reader_f1"], "from": out.name}
            retrieval.write_text(json.dumps(data, indent=2, default=str) + "\n")


if __name__ == "__main__":
    main()
