"""What a reader finds in the stored model outputs (issue 48), recomputed from them without a model.

Reflection: each statement the model wrote gets the class a reader uses, from its stored verdict
(`guard_class`): `chat` (dropped as a chat line), `unsupported` (dropped: its cited memories, or
the model's quotes, do not hold it), and for a kept one `copy` (it restates one memory), `partly`
(kept, but some of its content words are in no cited memory: coverage under 1), `generalisation`
(every content word held, more than one memory or a quote holding all of it). `reader_classes`
counts the kept statements per class, per user and overall; `label_agreement` compares these
classes with the hand labels of tests/data/llm_kept_labels.json (written once, by reading; its
`how` says how), over the kept statements and over every statement written.

Synthesis: `reground` applies the current guard (grounding.ground, then Insight.dated with the
guard's `stating` rule) to the model's stored raw answer, as consolidation.synthesize_cluster does;
`line_figures` counts the facts dated by a member that does not state them
(`facts_dated_from_another_member`) and the confirmations beyond the distinct sources of the members
that state their claim (`confirmations_without_support`), over any stored insights (before or after).
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

from graphcons.consolidation.grounding import SUPPORTED_COVERAGE, distinct_sources, ground, stating, subject_words
from graphcons.consolidation.grounding import support
from graphcons.consolidation.synthesis.models import Insight
from graphcons.core.errors import Ungrounded
from graphcons.core.text import shown_in
from graphcons.core.time import day

LABELS = Path(__file__).resolve().parents[2] / "tests" / "data" / "llm_kept_labels.json"
CLASSES = ("generalisation", "copy", "partly", "unsupported", "chat")


# -- reflection ------------------------------------------------------------------------------------
def guard_class(s: dict[str, Any]) -> str | None:
    """The reader's class of one judged statement (a row of a run's `statements`); None when folded."""
    if s["outcome"] == "folded":
        return None
    if s["outcome"] != "kept":
        return "chat" if s["reason"].startswith("a chat line") else "unsupported"
    if s["copy_of"] is not None:
        return "copy"
    if s["check"] == "quoted":  # its real quotes hold every content word of it
        return "generalisation"
    return "partly" if (s["coverage"] or 0) < 1.0 else "generalisation"


def _counts(rows: list[dict[str, Any]]) -> dict[str, int]:
    return {c: sum(1 for s in rows if s["guard_class"] == c) for c in CLASSES}


def reader_classes(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Kept statements per class, overall and per user; users keeping a supported generalisation."""
    parsed = [r for r in runs if "statements" in r and "output" in r]
    kept = [s for r in parsed for s in r["statements"] if s["outcome"] == "kept"]
    return {"kept": len(kept), **_counts(kept),
            "users_with_a_supported_non_copy": {
                "n": sum(1 for r in parsed if any(s["outcome"] == "kept" and s["guard_class"] == "generalisation"
                                                  for s in r["statements"])), "of": len(runs)},
            "per_user": {r["user"].strip(): _counts([s for s in r["statements"] if s["outcome"] == "kept"])
                         for r in parsed},
            "note": "kept statements by the class a reader uses, from the stored verdicts (bench/llm/reading.py); "
                    "a supported non-copy is a generalisation: every content word held by its cited memories or "
                    "by the model's quotes"}


def label_agreement(runs: list[dict[str, Any]], labels_path: Path = LABELS) -> dict[str, Any] | None:
    """The guard's classes against the hand labels, matched by user and statement."""
    if not labels_path.exists():
        return None
    labels = json.loads(labels_path.read_text())
    by = {(x["user"], x["statement"]): x["label"] for x in labels["labels"]}
    pairs = [(s["guard_class"], by.get((r["user"].strip(), s["statement"])), s["outcome"] == "kept")
             for r in runs for s in r.get("statements", []) if s["guard_class"]]
    pairs = [p for p in pairs if p[1]]

    def agree(rows: list[tuple]) -> dict[str, Any]:
        same = sum(1 for g, lab, _ in rows if g == lab)
        return {"n": len(rows), "agree": same, "share": round(same / len(rows), 4) if rows else None}

    kept = [p for p in pairs if p[2]]
    per_user = {r["user"].strip(): {c: sum(1 for s in r.get("statements", []) if s["outcome"] == "kept"
                                           and by.get((r["user"].strip(), s["statement"])) == c) for c in CLASSES}
                for r in runs if r.get("statements")}
    return {"kept": agree(kept), "written": agree(pairs), "kept_by_label_per_user": per_user,
            "kept_by_label": {c: sum(1 for _, lab, _ in kept if lab == c) for c in CLASSES},
            "confusion_kept": {f"{g} as {lab}": n for (g, lab), n in sorted(_confusion(kept).items())},
            "confusion_written": {f"{g} as {lab}": n for (g, lab), n in sorted(_confusion(pairs).items())},
            "labels": str(labels_path.relative_to(labels_path.parents[2])), "how": labels["how"]}


def _confusion(rows: list[tuple]) -> dict[tuple[str, str], int]:
    out: dict[tuple[str, str], int] = {}
    for g, lab, _ in rows:
        if g != lab:
            out[(g, lab)] = out.get((g, lab), 0) + 1
    return out


# -- synthesis -------------------------------------------------------------------------------------
def _answer(raw: str) -> dict[str, Any]:
    """The model's JSON answer (the last object in the raw text)."""
    text = raw.strip()
    start = text.find("{")
    return json.loads(text[start:text.rfind("}") + 1])


def reground(run: dict[str, Any], mems: dict[str, dict[str, Any]]) -> None:
    """The current guard over the model's stored raw insight answer (short ids M1.. mapped to the
    members in the order shown, which is id order): `insight`, `grounding`, or `status` ungrounded."""
    shown = [m["id"] for m in run["shown_memories"]]
    short = {f"M{n}": i for n, i in enumerate(shown, 1)}
    data = _answer(run["raw"][-1])

    def mapped(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: [short.get(str(x), x) for x in w] if k == "member_ids" else mapped(w) for k, w in v.items()}
        return [mapped(x) for x in v] if isinstance(v, list) else v

    insight = Insight.model_validate(mapped(data))
    texts = {i: mems[i]["content"] for i in shown}
    subjects = sorted({mems[i]["subject"] for i in shown})
    subject = subjects[0] if len(subjects) == 1 else ""
    try:
        g = ground(insight, None, shown, {i: (mems[i]["source"],) for i in shown}, texts=texts, subject=subject)
    except Ungrounded as exc:
        run.update(status="ungrounded", error=str(exc))
        return
    g.insight = g.insight.dated({i: mems[i]["created_at"] for i in shown}, texts,
                                partial(stating, ignore=subject_words(subject)))
    run.update(status="proposed", insight=json.loads(g.insight.model_dump_json()), grounding=g.report(),
               claims=len(g.insight.claims), cited=len(g.cited))
    run.pop("error", None)


def line_figures(runs: list[dict[str, Any]], mems: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Facts dated by a member that does not state them; confirmations beyond the sources of the
    members that state their claim; the lines the guard dropped or folded, listed."""
    wrong_dates: list[dict[str, Any]] = []
    extra: list[dict[str, Any]] = []
    facts = claims = 0
    for r in runs:
        if r.get("status") != "proposed":
            continue
        subject = subject_words(mems[r["shown_memories"][0]["id"]]["subject"])
        texts = {m["id"]: m["text"] for m in r["shown_memories"]}
        for f in r["insight"].get("facts", []):
            facts += 1
            ids = f["member_ids"]
            says = shown_in(f["statement"], {i: texts[i] for i in ids}) or stating(f["statement"], ids, texts, subject)
            dates = {day(mems[i]["created_at"]) for i in says}
            if f.get("when") and f["when"] not in dates:
                wrong_dates.append({"cluster": r["cluster"], "fact": f["statement"], "when": f["when"],
                                    "stated_by": says, "their_dates": sorted(dates)})
        for c in r["insight"]["claims"]:
            claims += 1
            ids = c["member_ids"]
            shares = support(c["statement"], [texts[i] for i in ids], subject).per_text
            alone = [i for i, share in zip(ids, shares) if share >= SUPPORTED_COVERAGE]
            due = max(1, distinct_sources(alone, {i: (mems[i]["source"],) for i in ids}))
            if (c.get("confirmations") or 1) > due:
                extra.append({"cluster": r["cluster"], "claim": c["statement"], "confirmations": c["confirmations"],
                              "stating_members": alone, "due": due})
    dropped = [dict(d, cluster=r["cluster"]) for r in runs for d in (r.get("grounding") or {}).get("dropped", [])]
    return {"facts": facts, "facts_dated_from_another_member": len(wrong_dates), "claims": claims,
            "confirmations_without_support": sum(e["confirmations"] - e["due"] for e in extra),
            "claims_confirmed_beyond_their_stating_members": len(extra),
            "dropped_claims": sum((r.get("grounding") or {}).get("dropped_claims", 0) for r in runs),
            "dropped_or_folded": dropped, "wrong_dates": wrong_dates, "over_confirmed": extra,
            "note": "a member states a line when its text shows it word for word or holds >= "
                    f"{SUPPORTED_COVERAGE:.0%} of its content words alone (else the members holding the most); "
                    "dates and confirmations must come from those (bench/llm/reading.py)"}

