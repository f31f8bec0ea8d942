"""The grounding guard over a reflection (issue 14): an entity's typed statements may cite only the
memories shown, and say only what they state about the entity.

`ground_reflection` runs on every reflection, whatever the provider, before anything is proposed,
with the insight guard's own word checks (graphcons.consolidation.grounding: `support`,
`claim_words`, the "(confirmed N times)" a model wrote):

- a statement keeps only the citations of memories that share a content word with it, and loses
  its leading acknowledgements ("Yes, ", "Of course. ");
- a reflection's summary keeps only the sentences the shown memories support, each judged as a
  statement citing every shown memory (issue 59: the summary was checked more loosely and kept what
  no statement could say);
- over chats (issue 48), a memory supports a statement only by what its speaker states about the
  entity (`said_by_entity`), a statement holding a chat line is dropped whole, a generalisation
  states nothing beyond its memories, and a model's check quote must hold all of it (`_checked`).

Each written statement's judgement is a typed `Verdict` with its `Outcome`, stored by `to_dict`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable

from graphcons.consolidation.grounding import (
    CONFIRMED_RE,
    SUPPORTED_COVERAGE,
    Support,
    claim_words,
    keep_shown,
    support,
)
from graphcons.consolidation.synthesis.models import CATEGORIES, Reflection, Statement
from graphcons.core.errors import Ungrounded
from graphcons.core.text import chat_line, content_terms, own_words, sentences, squash, unacknowledged

#: Speakers whose words are never a fact about the entity a reflection is on (a memory's role or
#: speaker, `Shown.speaker`): what an assistant suggested is not what the user does (issue 48).
ASSISTANT_ROLES = frozenset({"assistant", "ai", "bot", "system", "agent", "model", "tool"})


def said_by_entity(text: str, speaker: str | None) -> str:
    """What a memory states about the entity a reflection is on: nothing when an assistant said it,
    else its own statements (`own_words`: no question to the listener, no thanks, no acknowledgement)."""
    if speaker and speaker.strip().casefold() in ASSISTANT_ROLES:
        return ""
    return own_words(text)


def in_memory(quote: str, memory_text: str) -> bool:
    """A model's quote is really in the memory (case and punctuation aside)."""
    q = squash(quote)
    return bool(q) and f" {q} " in f" {squash(memory_text)} "


def quote_covers(statement: str, quotes: list[str], ignore: set[str] | frozenset[str] = frozenset()) -> Support:
    """The coverage rule applied to the quotes (their own statements: a quoted question says nothing):
    a statement kept on a quote must state nothing beyond it (`missing` empty)."""
    return support(statement, [own_words(q) for q in quotes], ignore)


#: A model's check of one statement: (cited memory id, the words it quotes from that memory) pairs;
#: None when no check was made (a replay of stored answers without one for this statement).
Checker = Callable[[str, dict[str, str]], list[tuple[str, str]] | None]


class Outcome(str, Enum):
    """What the guard did with one written statement."""

    KEPT = "kept"
    DROPPED = "dropped"  # with the reason
    FOLDED = "folded"  # the same content words as an earlier statement: its citations added there
    CAPPED = "capped"  # beyond [reflection] max_statements


@dataclass
class Verdict:
    """One written statement, judged: its support by the cited memories, the model's check, the outcome.
    `to_dict` is the stored form (a proposal's grounding payload lists some of its keys)."""

    category: str
    statement: str  # as the model wrote it
    memory_ids: list[str]  # as cited
    text: str = ""  # without confirmation counts
    chat_removed: list[str] = field(default_factory=list)  # its chat lines (issue 48: then dropped whole)
    kept_ids: list[str] = field(default_factory=list)
    coverage: float | None = None
    verdict: str | None = None  # Support.verdict
    restated: str | None = None  # the one memory it copies
    quotes: list[dict[str, Any]] | None = None  # the model's check: its quotes and whether each was found
    check: str | None = None  # "quoted" | "no real quote" | "quote does not hold it"; None: not checked
    outcome: Outcome = Outcome.DROPPED
    reason: str = ""
    check_error: str | None = None
    quote_missing: list[str] | None = None  # the statement's words its real quotes do not hold

    def to_dict(self) -> dict[str, Any]:
        out = {"category": self.category, "statement": self.statement, "memory_ids": self.memory_ids,
               "kept_ids": self.kept_ids, "coverage": self.coverage, "verdict": self.verdict,
               "restated": self.restated, "quotes": self.quotes, "check": self.check, "text": self.text,
               "chat_removed": self.chat_removed, "outcome": self.outcome.value, "reason": self.reason}
        if self.check_error is not None:
            out["check_error"] = self.check_error
        if self.quote_missing is not None:
            out["quote_missing"] = self.quote_missing
        return out


@dataclass
class GroundedReflection:
    reflection: Reflection  # every statement citing shown ids only, each supported by its citations
    cited: list[str]
    stripped: list[str] = field(default_factory=list)  # ids cited but never shown
    dropped_statements: int = 0  # statements dropped (never stored); `dropped` says which and why
    capped_statements: int = 0  # beyond [reflection] max_statements per category
    dropped_summary: list[str] = field(default_factory=list)  # summary sentences no shown memory supports
    unsupported: list[str] = field(default_factory=list)  # shown ids cited for a statement they hold no word of
    judged: list[Verdict] = field(default_factory=list)  # every statement written, with its support and outcome
    check_calls: int = 0  # the model's support checks

    @property
    def dropped(self) -> list[dict[str, Any]]:
        return [{k: j.to_dict()[k] for k in ("category", "statement", "memory_ids", "coverage", "reason")}
                for j in self.judged if j.outcome is Outcome.DROPPED]

    def report(self) -> dict[str, Any]:
        out = {"cited": self.cited, "stripped": self.stripped, "stripped_count": len(self.stripped),
               "dropped_statements": self.dropped_statements, "capped_statements": self.capped_statements,
               "restated": sum(1 for j in self.judged if j.outcome is Outcome.KEPT and j.restated),
               "support_threshold": SUPPORTED_COVERAGE}
        if self.dropped:
            out["dropped"] = self.dropped
        checked = [j.to_dict() for j in self.judged if j.quotes is not None]
        if checked:
            out["checked"] = [{k: j[k] for k in ("statement", "quotes", "check", "outcome")} for j in checked]
        if self.dropped_summary:
            out["dropped_summary"] = self.dropped_summary
        if self.unsupported:
            out["unsupported_citations"] = self.unsupported
        return out


def _fold_key(text: str, words: set[str]) -> str:
    # the same words in any category or order are the same statement
    return " ".join(sorted(words)) if words else squash(text)


def _checked(v: Verdict, cited: list[str], texts: dict[str, str], said: dict[str, str], ignore: set[str],
             check: Checker) -> None:
    """The model's check of a statement its citations hold but do not copy (issue 48): the model
    quotes the shortest span of each cited memory that says it. A quote counts when it is really in a
    cited memory the entity speaks in and holds a word of the statement; the real quotes together must
    hold it by the same coverage rule as the memories, and the statement is kept only when they hold
    every content word of it (it states nothing beyond them), else dropped. A checker answering None asked nothing (a replay without a stored answer):
    the words decide alone."""
    try:
        answer = check(v.text, {i: texts[i] for i in cited})
    except Exception as exc:  # noqa: BLE001 - a failed check is no quote: the statement is not confirmed
        answer, v.check_error = [], str(exc)
    if answer is None:
        return
    v.quotes = [{"memory_id": i, "quote": q, "found": i in cited and bool(said.get(i)) and in_memory(q, texts[i])
                 and bool(quote_covers(v.text, [q], ignore).coverage)} for i, q in answer]
    real = [q for q in v.quotes if q["found"]]
    covered = quote_covers(v.text, [q["quote"] for q in real], ignore)
    if not real or covered.verdict != "supported":
        v.check, v.reason = "no real quote", ("the model's check quoted no span of a cited memory holding "
                                              f"{SUPPORTED_COVERAGE:.0%} of its content words")
    elif covered.missing:
        v.check, v.quote_missing = "quote does not hold it", list(covered.missing)
        v.reason = f"it states more than the model's quotes hold (missing: {', '.join(covered.missing)})"
    else:
        v.check = "quoted"
        v.outcome, v.kept_ids = Outcome.KEPT, sorted({q["memory_id"] for q in real})


def statement_text(statement: str) -> str:
    """A statement as it is judged and kept: no "(confirmed N times)" (grounding counts those) and no
    leading acknowledgement the model copied from a chat turn ("Yes, I like ...": issue 59)."""
    return unacknowledged(CONFIRMED_RE.sub("", statement).strip())


CHAT_REASON = "a chat line (a question, thanks or an acknowledgement to the listener), not a statement about the entity"


def _judge(category: str, s: Statement, ids: list[str], texts: dict[str, str] | None, ignore: set[str],
           check: Checker | None, said: dict[str, str] | None = None) -> Verdict:
    """One statement's support, copy flag and outcome (kept / dropped with the reason). A statement
    holding a chat line is a chat turn copied, not a statement about the entity: dropped whole
    (issue 48: cutting the line out left fragments and half-chat)."""
    written = CONFIRMED_RE.sub("", s.statement).strip()
    chat = [line for line in sentences(written) if chat_line(line)]  # the lines as written
    text = unacknowledged(written)
    v = Verdict(category=category, statement=s.statement, memory_ids=list(s.memory_ids), text=text, chat_removed=chat)
    if not ids:
        v.reason = "cites no memory it was shown"
    elif chat:
        v.reason = CHAT_REASON
    elif texts is None:  # nothing to compare with: the citations stand
        v.outcome, v.kept_ids = Outcome.KEPT, ids
    else:
        _supported(v, ids, texts, said if said is not None else texts, ignore, check)
    return v


def _supported(v: Verdict, ids: list[str], texts: dict[str, str], said: dict[str, str], ignore: set[str],
               check: Checker | None) -> None:
    """Judge `v` by what its cited memories state about the entity (`said`); a generalisation they
    allow (supported, not a copy) is then checked by the model against the memories' `texts`."""
    cited = [i for i in ids if i in texts]
    sup = support(v.text, [said.get(i, "") for i in cited], ignore)
    v.coverage, v.verdict = sup.coverage, sup.verdict
    words = claim_words(v.text, ignore)
    if sup.verdict == "empty":
        v.reason = "no content word beyond the entity's name and generic words: nothing a memory could support"
        return
    if sup.verdict == "unsupported":
        v.reason = (f"its cited memories hold {round((sup.coverage or 0) * len(words))} of its {len(words)} "
                    f"content words (needs {SUPPORTED_COVERAGE:.0%}; missing: {', '.join(sup.missing)})")
        return
    if sup.copy_of is not None:
        v.restated = cited[sup.copy_of]
        v.outcome, v.kept_ids = Outcome.KEPT, [v.restated]
        return
    if sup.missing:  # not a copy: it must state nothing beyond its memories (the prompt's own rule)
        v.reason = (f"it states more than its cited memories: they hold {round((sup.coverage or 0) * len(words))} "
                    f"of its {len(words)} content words (missing: {', '.join(sup.missing)})")
        return
    if check is not None:  # a generalisation the words allow: the model's quotes must hold it
        _checked(v, cited, texts, said, ignore, check)
        if v.check is not None:
            return
    v.kept_ids = [i for i, share in zip(cited, sup.per_text) if share > 0]
    v.outcome = Outcome.KEPT


@dataclass
class _Written:
    """A statement to judge, with the shown ids it cites (those of later statements folded into it added)."""

    category: str
    s: Statement
    ids: list[str]


def _written(reflection: Reflection, shown: set[str], ignore: set[str],
             stripped: list[str]) -> list[_Written | Verdict]:
    """The statements in the order written, ids never shown stripped; a statement already made (same
    content words, any category) becomes a folded verdict and adds its citations to the first."""
    written: list[_Written | Verdict] = []
    first: dict[str, _Written] = {}
    for category in CATEGORIES:
        for s in getattr(reflection, category):
            ids = keep_shown(s.memory_ids, shown, stripped)
            text = statement_text(s.statement)
            key = _fold_key(text, claim_words(text, ignore)) if text else ""
            if key in first:  # said before, in any category: one statement resting on both citations
                earlier = first[key]
                earlier.ids += [i for i in ids if i not in earlier.ids]
                written.append(Verdict(category=category, statement=s.statement, memory_ids=list(s.memory_ids),
                                       text=text, outcome=Outcome.FOLDED,
                                       reason=f"the same statement as {earlier.s.statement!r}"))
                continue
            entry = _Written(category, s, ids)
            if key:
                first[key] = entry
            written.append(entry)
    return written


def _capped(kept: dict[str, list[Statement]], judged: list[Verdict], max_statements: int | None) -> int:
    """Each category cut to `max_statements` (the verdicts of the cut ones marked capped); how many were cut."""
    capped = 0
    for category in CATEGORIES:
        if max_statements is not None and len(kept[category]) > max_statements:
            for st in kept[category][max_statements:]:
                for v in judged:
                    if v.outcome is Outcome.KEPT and v.text == st.statement:
                        v.outcome, v.reason = Outcome.CAPPED, f"beyond [reflection] max_statements = {max_statements}"
            capped += len(kept[category]) - max_statements
            kept[category] = kept[category][:max_statements]
    return capped


def ground_reflection(reflection: Reflection, shown_ids: list[str] | tuple[str, ...], *,
                      max_statements: int | None = None, texts: dict[str, str] | None = None,
                      subject: str = "", check: Checker | None = None,
                      speakers: dict[str, str | None] | None = None) -> GroundedReflection:
    """Keep only the statements their cited memories support (issue 40); raise Ungrounded when none is left.

    Each statement, in category order: ids never shown are stripped; a statement holding a chat
    line (a question, thanks, an acknowledgement: `core.text.chat_line`) is a chat turn copied and
    is dropped whole (issue 48); with the shown memories' `texts`, what its cited memories state
    about the entity (`said_by_entity`: not their questions to the listener nor their thanks for
    the listener's suggestions, nothing when `speakers` names an assistant role) must hold
    SUPPORTED_COVERAGE of its content words (`support`), else it is dropped with the reason;
    citations holding none of its words are stripped (a small model cites the neighbour of the
    memory it used, and approving consolidates what it cited); a statement that restates one
    memory is kept as a fact marked `restated` (never a preference or a behaviour it does not
    generalise); any other statement must have every content word in its cited memories (issue 48:
    a generalisation states nothing beyond them, as the prompt asks) and, with a model `check`, in
    the model's quotes (`_checked`). A statement already made (same content words, any category) is folded
    into the first before it is judged: one statement resting on both citations (ten memories
    each saying it are a generalisation, not ten copies). Then each category is capped and the
    summary keeps only its sentences a statement citing every shown memory could say (`_summary`)."""
    ignore = content_terms(subject.replace("-", " "))
    said = {i: said_by_entity(t, (speakers or {}).get(i)) for i, t in texts.items()} if texts is not None else None
    stripped: list[str] = []
    unsupported: list[str] = []
    judged: list[Verdict] = []
    kept: dict[str, list[Statement]] = {c: [] for c in CATEGORIES}
    for e in _written(reflection, set(shown_ids), ignore, stripped):
        if isinstance(e, Verdict):
            judged.append(e)
            continue
        v = _judge(e.category, e.s, e.ids, texts, ignore, check, said)
        judged.append(v)
        if v.outcome is Outcome.KEPT:
            unsupported += [i for i in e.ids if i not in v.kept_ids]
            kept["facts" if v.restated else e.category].append(
                Statement(statement=v.text, memory_ids=sorted(v.kept_ids), restated=v.restated))
    capped = _capped(kept, judged, max_statements)
    dropped = sum(1 for v in judged if v.outcome is Outcome.DROPPED)
    if not any(kept.values()):
        raise Ungrounded(f"the reflection has no statement its cited memories support, of {len(judged)} written "
                         f"({len(stripped)} unknown id(s) stripped, {dropped} statement(s) dropped: "
                         f"{'; '.join(sorted({v.reason for v in judged if v.reason}))}); "
                         "rejected, nothing stored", stripped + unsupported)
    summary, dropped_summary = _summary(reflection.summary, shown_ids, texts, ignore, said)
    clean = Reflection(summary=summary, **kept)
    return GroundedReflection(reflection=clean, cited=clean.cited_ids(), stripped=stripped,
                              dropped_statements=dropped, capped_statements=capped, dropped_summary=dropped_summary,
                              unsupported=unsupported, judged=judged,
                              check_calls=sum(1 for v in judged if v.quotes is not None))


def _summary(summary: str, shown_ids: list[str] | tuple[str, ...], texts: dict[str, str] | None, ignore: set[str],
             said: dict[str, str] | None) -> tuple[str, list[str]]:
    """(the summary's sentences kept, those dropped): each judged as a statement citing every shown memory
    (issue 59: the same check, so a summary cannot say what no statement may: "likes to fly kites" from
    a question to the assistant, "is a hardworking person" from a sentence about the assistant). Without
    the memories' texts only chat lines go."""
    ids = [i for i in shown_ids if texts is None or i in texts]
    kept, dropped = [], []
    for sentence in sentences(summary):
        v = _judge("summary", Statement(statement=sentence, memory_ids=ids), ids, texts, ignore, None, said)
        if v.outcome is Outcome.KEPT and v.text:
            kept.append(v.text)
        else:
            dropped.append(sentence)
    return " ".join(kept), dropped
