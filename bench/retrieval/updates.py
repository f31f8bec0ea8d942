"""Are the updates graphcons notices right? (issue 51 item 1) LongMemEval dev questions, offline.

Loads every dev question (all types: a false proposal in a multi-session question counts too) as
bench/retrieval/longmemeval.py stores them (every turn a memory, created_at the session date, subject
the speaker, one namespace per question), gives each memory the event start admission would store
(core/eventtime), and runs the update detection (graphcons.maintenance.updates.detect) without a
database. A proposal is right when both memories hold the question's old and new value: both are
has_answer turns of two different answer sessions of a knowledge-update question, the newer one
pointing to the older. Fit on the first half of the questions (file order), `held_out` the second.

    python -m bench.retrieval.updates

Saves bench/retrieval/results/updates.json: made, right, precision, wrong (each with both texts,
ids, the attribute and why it is wrong), found_of_knowledge_update, per half and overall, seconds; and
`update_pairs` (issue 62): precision and recall against the labelled pair set
(bench/retrieval/labels/update_pairs.jsonl: the has_answer pairs and the pass's other proposals, read and
labelled), fit half, held-out half and overall.
"""

from __future__ import annotations

import json
import sys
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from bench.retrieval.lme_data import DATA, load, when  # noqa: E402
from graphcons.core import eventtime  # noqa: E402
from graphcons.maintenance.updates.detect import detect  # noqa: E402

RESULTS = ROOT / "bench" / "retrieval" / "results" / "updates.json"
# The labelled pair set (issue 62): the has_answer turn pairs of the knowledge-update questions and the
# pass's other proposals of main 0fc1b61, each read and labelled (who and how: each record's `by`, `note`)
PAIRS = ROOT / "bench" / "retrieval" / "labels" / "update_pairs.jsonl"
FITTED_ON = "the first half of each question type, file order (the half the rules were written on)"


def labelled_pairs() -> dict[tuple[str, str], dict]:
    """(older id, newer id) -> its record of bench/retrieval/labels/update_pairs.jsonl."""
    return {(x["older"], x["newer"]): x for x in map(json.loads, PAIRS.read_text().splitlines()) if x}


def pair_figures(updates, namespaces: list[str], pairs: dict[tuple[str, str], dict]) -> dict:
    """Against the labelled pairs of the `namespaces`' questions: `precision` over every proposal (one
    outside the set counts as not right: the denominator is what was proposed), `precision_labelled` over
    the proposals the set labels, `recall` over the set's updates."""
    keep = {ns.removeprefix("lme-") for ns in namespaces}
    mine = [(u.older, u.newer) for u in updates if u.namespace.removeprefix("lme-") in keep]
    wanted = {k for k, x in pairs.items() if x["question"] in keep and x["update"]}
    labelled = [k for k in mine if k in pairs]
    right = [k for k in labelled if pairs[k]["update"]]
    return {"proposals": len(mine), "labelled_proposals": len(labelled), "right": len(right),
            "precision": round(len(right) / len(mine), 4) if mine else None,
            "precision_labelled": round(len(right) / len(labelled), 4) if labelled else None,
            "recall": round(len(wanted & set(mine)) / len(wanted), 4) if wanted else None,
            "labelled": sum(1 for x in pairs.values() if x["question"] in keep), "updates_labelled": len(wanted),
            "missed": sorted(f"{o} -> {n}" for o, n in wanted - set(mine)),
            "unlabelled": sorted(f"{o} -> {n}" for o, n in mine if (o, n) not in pairs)}


def labels() -> tuple[dict[str, dict], list[str]]:
    """Per question: its type, its has_answer turns (memory id -> session) and the session dates; the
    question ids in file order."""
    out, order = {}, []
    for q in json.loads(DATA.read_text()):
        answers, turns_of = {}, {}
        dates = dict(zip(q["haystack_session_ids"], q["haystack_dates"]))
        for sid, turns in zip(q["haystack_session_ids"], q["haystack_sessions"]):
            for j, t in enumerate(turns):
                if sid in q["answer_session_ids"]:
                    turns_of[f"{q['question_id']}.{sid}.{j}"] = sid
                if t.get("has_answer") and sid in q["answer_session_ids"]:
                    answers[f"{q['question_id']}.{sid}.{j}"] = sid
        out[f"lme-{q['question_id']}"] = {"id": q["question_id"], "type": q["question_type"], "answers": answers, "turns": turns_of, "dates": {s: when(d) for s, d in dates.items()},
                                          "question": q["question"], "answer": str(q["answer"])}
        order.append(f"lme-{q['question_id']}")
    return out, order


def judge(u, label: dict) -> str | None:
    """None when right; else why it is wrong."""
    if label["type"] != "knowledge-update":
        return f"not a knowledge-update question ({label['type']})"
    a, b = label["answers"].get(u.newer), label["answers"].get(u.older)
    if a is None or b is None:
        return "a memory of the pair holds no answer of the question (not has_answer)"
    if a == b:
        return "both from one answer session"
    if label["dates"][a] <= label["dates"][b]:
        return "the wrong way round: the 'newer' memory's session is not later"
    return None


def in_answer_sessions(u, label: dict) -> bool:
    """The looser reading: any two turns (has_answer or not) of two answer sessions of a knowledge-update
    question (its `_abs` twin too: same sessions, no labels), the newer one's session later. The strict
    reading (`judge`) misses a turn that restates the value when another turn of its session carries the label."""
    a, b = label["turns"].get(u.newer), label["turns"].get(u.older)
    return (label["type"] == "knowledge-update" and a is not None and b is not None and a != b
            and label["dates"][a] > label["dates"][b])


def figures(updates, labels_, namespaces: list[str], texts: dict[str, str]) -> dict:
    keep = set(namespaces)
    mine = [u for u in updates if u.namespace in keep]
    wrong, right_ns = [], set()
    for u in mine:
        why = judge(u, labels_[u.namespace])
        if why is None:
            right_ns.add(u.namespace)
        else:
            wrong.append({"question": labels_[u.namespace]["id"], "why": why, **u.as_dict(),
                          "question_text": labels_[u.namespace]["question"]})
    ku = [ns for ns in namespaces if labels_[ns]["type"] == "knowledge-update"
          and len(set(labels_[ns]["answers"].values())) >= 2]
    made = len(mine)
    loose = sum(1 for u in mine if in_answer_sessions(u, labels_[u.namespace]))
    for w in wrong:
        w["in_answer_sessions"] = in_answer_sessions(type("U", (), w), labels_["lme-" + w["question"]])
    return {"questions": len(namespaces), "made": made, "right": made - len(wrong),
            "precision": round((made - len(wrong)) / made, 4) if made else None,
            "right_in_answer_sessions": loose,
            "precision_in_answer_sessions": round(loose / made, 4) if made else None,
            "knowledge_update_questions": sum(1 for ns in namespaces if labels_[ns]["type"] == "knowledge-update"),
            "knowledge_update_with_two_answer_sessions": len(ku),
            "found_of_knowledge_update": len(right_ns),
            "missed_knowledge_update": sorted(labels_[ns]["id"] for ns in ku if ns not in right_ns),
            "wrong": wrong}


def halves(labels_: dict[str, dict], order: list[str]) -> tuple[list[str], list[str]]:
    """The first half of each question type (file order) to fit, the second half held out."""
    fit, held = [], []
    for ns in order:
        same = [x for x in order if labels_[x]["type"] == labels_[ns]["type"]]
        (fit if same.index(ns) < (len(same) + 1) // 2 else held).append(ns)
    return fit, held


def update_pairs(updates, labels_: dict[str, dict], asked: list[str]) -> dict:
    """`update_pairs` (issue 62) of the proposals `updates` over the questions `asked` (namespaces): the
    fit half, the held-out half (what is reported: `precision` and `recall` at the top are its) and all."""
    pairs = labelled_pairs()
    fit, held = halves(labels_, list(labels_))  # labels_ is in file order
    parts = {part: pair_figures(updates, [ns for ns in asked if ns in nss], pairs)
             for part, nss in (("fit", set(fit)), ("held_out", set(held)), ("overall", set(asked)))}
    return {"fitted_on": FITTED_ON, "reported_on": "held_out", "labelled": parts["held_out"]["labelled"],
            "precision": parts["held_out"]["precision"], "recall": parts["held_out"]["recall"], **parts}


def main() -> None:
    t = time.perf_counter()
    memories, _ = load(None, None)
    for m in memories:
        props = eventtime.properties(m["content"], datetime.fromisoformat(m["created_at"]))
        m["event_start"] = props["event_start"]
    updates = detect(memories)
    seconds = round(time.perf_counter() - t, 2)
    labels_, order = labels()
    texts = {m["id"]: m["content"] for m in memories}
    fit, held = halves(labels_, order)
    report = {"command": "python -m bench.retrieval.updates", "memories": len(memories), "seconds": seconds,
              "overall": figures(updates, labels_, order, texts),
              "fit": figures(updates, labels_, fit, texts),
              "held_out": figures(updates, labels_, held, texts),
              "update_pairs": update_pairs(updates, labels_, order)}
    for key in ("made", "right", "precision", "right_in_answer_sessions", "precision_in_answer_sessions",
                "found_of_knowledge_update", "wrong"):
        report[key] = report["overall"][key]
    RESULTS.write_text(json.dumps(report, indent=1, default=str) + "\n")
    for part in ("fit", "held_out", "overall"):
        f = report[part]
        print(f"{part}: made {f['made']} right {f['right']} precision {f['precision']} (in answer sessions "
              f"{f['right_in_answer_sessions']}, {f['precision_in_answer_sessions']}) "
              f"found {f['found_of_knowledge_update']}/{f['knowledge_update_with_two_answer_sessions']} KU")
    for part in ("fit", "held_out", "overall"):
        f = report["update_pairs"][part]
        print(f"labelled pairs, {part}: precision {f['precision']} ({f['right']} of {f['proposals']} proposals; "
              f"{f['precision_labelled']} of the {f['labelled_proposals']} labelled), recall {f['recall']} "
              f"of {f['updates_labelled']} updates")
    print(f"{seconds} s -> {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
