"""The grounding guard (principle 5): an insight may cite only the member ids it was shown.

`ground` runs on every synthesis, whatever the provider, before anything is stored:

- every cited id that was not shown is stripped and counted (claims may cite members only;
  tensions may also name the labelled context, which is never support);
- a claim left without citations is dropped; a synthesis whose claims rest on none of the
  members is rejected with `Ungrounded` (the caller audits the rejection and stores nothing);
- confirmation counts are computed here, from the *distinct sources* of the cited members that
  state the claim on their own (issue 48: a co-cited member sharing a word is no confirmation),
  never from how many members repeat a claim (principle 10: one source planting a claim
  three times is confirmed once); any "(confirmed N times)" the model wrote is removed;
- every claim, fact or implication dropped or folded is listed with the reason (`dropped`):
  facts restating the same member are one fact, an implication repeating a claim is folded;
- the prompt's own rules are checked where code can (issue 31): a "tension" that only restates
  a claim is dropped, and the confidence is capped at MAX_CONFIDENCE unless the members leave
  no doubt (every member cited, no tension, no gap, at least NO_DOUBT_SOURCES distinct sources);
- a reflection's summary keeps only the sentences the shown memories support, each judged as a
  statement citing every shown memory (issue 59: the summary was checked more loosely and kept what
  no statement could say); a reflection statement keeps only the citations of memories that share a
  content word with it, and loses its leading acknowledgements ("Yes, ", "Of course. ");
- over chats (issue 48), a memory supports a statement only by what its speaker states about the
  entity (`said_by_entity`), a statement holding a chat line is dropped whole, a generalisation
  states nothing beyond its memories, and a model's check quote must hold all of it (`_checked`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable

from graphcons.consolidation.synthesis.models import (
    CATEGORIES,
    Claim,
    Fact,
    Insight,
    Reflection,
    Statement,
    Tension,
    Theme,
    Themes,
)
from graphcons.core.errors import Ungrounded
from graphcons.core.text import (
    GENERIC_STEMS,
    chat_line,
    content_terms,
    own_words,
    sentences,
    squash,
    unacknowledged,
)

MAX_CONFIDENCE = 0.9  # a generalisation is a hypothesis: 1.0 only when the members leave no doubt
NO_DOUBT_SOURCES = 3
RESTATED_SHARE = 0.8  # a tension whose content words are this much one claim's is that claim restated
#: A statement is supported when its cited memories together hold at least this share of its content
#: words (GENERIC ones aside): more than half. Chosen on tests/data/support_labels.jsonl (121 statements
#: labelled by hand): P 0.94 / R 0.88 for `supported` here, P 0.84 / R 0.94 at 0.5 (docs/LLM.md).
SUPPORTED_COVERAGE = 0.6
#: One cited memory holding this share of a statement's words, and no other cited memory supporting
#: it, makes the statement a restatement of that memory, not a generalisation.
COPY_COVERAGE = 0.8
_CONFIRMED_RE = re.compile(r"\s*\((?:confirmed|seen|reported)\s+(?:\d+|once|twice|thrice|\w+)\s+times?\)|"
                           r"\s*\(confirmed (?:once|twice)\)", re.IGNORECASE)


@dataclass
class Grounded:
    insight: Insight
    themes: Themes
    cited: list[str]  # member ids the claims rest on (DERIVED_FROM targets)
    stripped: list[str] = field(default_factory=list)  # ids cited but never shown, in order of appearance
    context_as_support: list[str] = field(default_factory=list)  # context ids a claim tried to cite
    dropped_claims: int = 0  # claims and facts dropped, each listed in `dropped`
    dropped: list[dict[str, Any]] = field(default_factory=list)  # kind, statement, member_ids, reason
    dropped_tensions: list[str] = field(default_factory=list)  # "tensions" that restated a claim
    confidence_given: float | None = None  # the model's confidence when it was capped
    claim_support: list[dict[str, Any]] = field(default_factory=list)  # per claim: coverage, verdict, restated
    unsupported: list[str] = field(default_factory=list)  # members cited for a line they hold no word of

    @property
    def stripped_count(self) -> int:
        return len(self.stripped) + len(self.context_as_support)

    def report(self) -> dict[str, Any]:
        out = {"cited": self.cited, "stripped": self.stripped, "stripped_count": self.stripped_count,
               "context_as_support": self.context_as_support, "dropped_claims": self.dropped_claims}
        if self.dropped:
            out["dropped"] = self.dropped
        if self.dropped_tensions:
            out["dropped_tensions"] = self.dropped_tensions
        if self.claim_support:
            out["claim_support"] = self.claim_support
        if self.confidence_given is not None:
            out["confidence_capped"] = {"given": self.confidence_given, "kept": self.insight.confidence}
        if self.unsupported:
            out["unsupported_citations"] = self.unsupported
        return out


def restates_claim(tension: str, claims: list[str]) -> bool:
    """A tension whose content words are mostly those of one claim says no disagreement."""
    words = content_terms(tension)
    return bool(words) and any(len(words & content_terms(c)) >= RESTATED_SHARE * len(words) for c in claims)


def capped_confidence(insight: Insight, member_ids: set[str], sources: dict[str, Any]) -> float:
    """The prompt's rule 4 in code: below 1 unless the members leave no doubt."""
    no_doubt = (set(insight.cited_ids()) >= member_ids and not insight.tensions and not insight.gaps
                and distinct_sources(insight.cited_ids(), sources) >= NO_DOUBT_SOURCES)
    return insight.confidence if no_doubt else min(insight.confidence, MAX_CONFIDENCE)


def _known(word: str, known: set[str]) -> bool:
    # the same stem, or a shared 6-letter start: "engineering" / "engineer"
    return word in known or (len(word) >= 6 and any(k[:6] == word[:6] for k in known if len(k) >= 6))


@dataclass(frozen=True)
class Support:
    """How far the cited texts hold a statement: `coverage` is the share of its content words
    (GENERIC words and `ignore` aside) found in them together, None when it has none to judge;
    `verdict` "supported" (coverage >= SUPPORTED_COVERAGE), "unsupported" or "empty";
    `copy_of` the index of the one cited text it restates; `per_text` each text's own share."""

    coverage: float | None
    verdict: str
    copy_of: int | None = None
    per_text: tuple[float, ...] = ()
    missing: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"coverage": self.coverage, "verdict": self.verdict, "copy_of": self.copy_of,
                "per_text": list(self.per_text), "missing": list(self.missing)}


def claim_words(statement: str, ignore: set[str] | frozenset[str] = frozenset()) -> set[str]:
    """The content words a statement claims: no stop words, no generic words, not the entity's name."""
    return content_terms(statement) - set(ignore) - GENERIC_STEMS


def support(statement: str, cited_texts: list[str], ignore: set[str] | frozenset[str] = frozenset()) -> Support:
    """Whether `cited_texts` together support `statement` (principle 5: their words, not one shared word)."""
    words = claim_words(statement, ignore)
    if not words:
        return Support(coverage=None, verdict="empty", per_text=tuple(0.0 for _ in cited_texts))
    held = [{w for w in words if _known(w, content_terms(t))} for t in cited_texts]
    union = set().union(*held) if held else set()
    coverage = round(len(union) / len(words), 4)
    per_text = tuple(round(len(h) / len(words), 4) for h in held)
    copy_of = None
    full = [i for i, share in enumerate(per_text) if share >= COPY_COVERAGE]
    if len(full) == 1 and sum(share >= SUPPORTED_COVERAGE for share in per_text) == 1:
        copy_of = full[0]
    return Support(coverage=coverage, verdict="supported" if coverage >= SUPPORTED_COVERAGE else "unsupported",
                   copy_of=copy_of, per_text=per_text, missing=tuple(sorted(words - union)))


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


def confirmation_phrase(n: int) -> str:
    return "confirmed once" if n == 1 else f"confirmed {n} times"


def distinct_sources(ids: list[str], sources: dict[str, tuple[str, ...] | list[str]]) -> int:
    """How many different sources stand behind these members (repetition is not confirmation)."""
    return len({s for i in ids for s in sources.get(i, ())})


def _keep(ids: list[str], allowed: set[str], stripped: list[str], context: set[str] | None = None,
          context_hits: list[str] | None = None) -> list[str]:
    kept: list[str] = []
    for i in ids:
        if i in allowed:
            if i not in kept:
                kept.append(i)
        elif context is not None and i in context and context_hits is not None:
            context_hits.append(i)
        else:
            stripped.append(i)
    return kept


def _narrowed(ids: list[str], statement: str, texts: dict[str, str], ignore: set[str],
              unsupported: list[str]) -> list[str]:
    """The cited members that hold a word of `statement` (the subject's name aside): a small model
    cites the neighbour of the member it used, and approval marks every cited member consolidated
    (issue 40). Members restating it stay: they confirm it. None left: the citations stand, and
    the support check judges them."""
    sup = support(statement, [texts.get(i, "") for i in ids], ignore)
    if sup.verdict == "empty":
        return ids
    kept = [i for i, share in zip(ids, sup.per_text) if share > 0] or ids
    unsupported += [i for i in ids if i not in kept and i not in unsupported]
    return kept


def subject_words(subject: str) -> set[str]:
    """The content words of an entity's name ("user-ana": user, ana): never a claim about it."""
    return content_terms(subject.replace("-", " ")) if subject else set()


def stating(statement: str, ids: list[str], texts: dict[str, str], ignore: set[str] | frozenset[str] = frozenset()
            ) -> list[str]:
    """The cited members that state `statement` on their own (each holds SUPPORTED_COVERAGE of its
    words); when none does (a line joining several), those holding the most of them. What confirms a
    line and what dates it (issue 48: never a co-cited neighbour sharing a word)."""
    sup = support(statement, [texts.get(i, "") for i in ids], ignore)
    if sup.verdict == "empty":
        return list(ids)
    alone = [i for i, share in zip(ids, sup.per_text) if share >= SUPPORTED_COVERAGE]
    best = max(sup.per_text, default=0.0)
    return alone or [i for i, share in zip(ids, sup.per_text) if share == best and share > 0]


def confirmations(statement: str, ids: list[str], texts: dict[str, str] | None, sources: dict[str, Any],
                  ignore: set[str] | frozenset[str] = frozenset()) -> int:
    """Distinct sources of the members that state a line on their own; a line no member states alone
    (it joins several) is confirmed once. Without texts: the cited members' sources (principle 10)."""
    if not texts:
        return distinct_sources(ids, sources)
    sup = support(statement, [texts.get(i, "") for i in ids], ignore)
    alone = [i for i, share in zip(ids, sup.per_text) if share >= SUPPORTED_COVERAGE]
    return max(1, distinct_sources(alone, sources)) if alone else 1


def _folded_facts(facts: list[tuple[Fact, Support]], dropped: list[dict[str, Any]]) -> list[tuple[Fact, Support]]:
    """Facts restating the same member are one fact (issue 48: two halves of one memory were kept as
    two restated facts): the later one's words are added to the first, and it is listed as folded."""
    out: list[tuple[Fact, Support]] = []
    first: dict[str, int] = {}
    for f, sup in facts:
        copied = f.member_ids[sup.copy_of] if sup.copy_of is not None else None
        if copied is not None and copied in first:
            k = first[copied]
            kept, ksup = out[k]
            out[k] = (kept.model_copy(update={"statement": f"{kept.statement.rstrip('.')}. {f.statement}"}), ksup)
            dropped.append({"kind": "fact", "statement": f.statement, "member_ids": f.member_ids,
                            "reason": f"folded: the same member ({copied}) as {kept.statement!r}"})
            continue
        if copied is not None:
            first[copied] = len(out)
        out.append((f, sup))
    return out


def _implications(implications: list[str], claims: list[str], dropped: list[dict[str, Any]]) -> list[str]:
    """Implications that are new: one repeating a claim or an earlier implication is folded (listed)."""
    out: list[str] = []
    for x in implications:
        if restates_claim(x, claims + out):
            dropped.append({"kind": "implication", "statement": x, "member_ids": [],
                            "reason": "folded: it repeats a claim or an earlier implication"})
        else:
            out.append(x)
    return out


def ground(insight: Insight, themes: Themes | None, member_ids: list[str] | tuple[str, ...],
           sources: dict[str, tuple[str, ...] | list[str]], context_ids: list[str] | tuple[str, ...] = (),
           texts: dict[str, str] | None = None, subject: str = "") -> Grounded:
    """Strip unshown ids, compute confirmations; raise Ungrounded when no member is cited, or (with
    the members' `texts`) when everything it says (claims and facts) only restates one member: a
    copy is not an insight. With `texts`, a fact its cited members do not hold is dropped, and a
    claim or fact keeps only the citations that hold its words (`subject`'s name aside)."""
    members, context = set(member_ids), set(context_ids)
    ignore = subject_words(subject)
    unsupported: list[str] = []
    stripped: list[str] = []
    context_hits: list[str] = []
    claims: list[Claim] = []
    gone: list[dict[str, Any]] = []  # every claim, fact and implication dropped or folded, with the reason

    def cited(kind: str, line: Claim | Fact) -> tuple[str, list[str]] | None:
        """A claim's or fact's statement without a "(confirmed N times)" note, and the shown members that hold it;
        None, noted in `gone`, when it cites no member it was shown."""
        kept = _keep(line.member_ids, members, stripped, context, context_hits)
        if not kept:
            gone.append({"kind": kind, "statement": line.statement, "member_ids": list(line.member_ids),
                         "reason": "cites no member it was shown"})
            return None
        statement = _CONFIRMED_RE.sub("", line.statement).strip()
        return statement, sorted(_narrowed(kept, statement, texts, ignore, unsupported) if texts else kept)

    for st, ids in filter(None, (cited("claim", c) for c in insight.claims)):
        claims.append(Claim(statement=st, member_ids=ids, confirmations=confirmations(st, ids, texts, sources, ignore)))
    # a fact citing no shown member is dropped like a claim, but never decides groundedness alone
    facts = [Fact(statement=st, member_ids=ids) for st, ids in filter(None, (cited("fact", f) for f in insight.facts))]
    said = [c.statement for c in claims]
    restated = [t.description for t in insight.tensions if restates_claim(t.description, said)]
    tensions = [Tension(description=t.description, member_ids=sorted(_keep(t.member_ids, members | context, stripped)))
                for t in insight.tensions if t.description not in restated]
    theme_list = [Theme(title=t.title, question=t.question, member_ids=sorted(_keep(t.member_ids, members, stripped)))
                  for t in (themes.themes if themes else [])]
    if not claims:
        raise Ungrounded(
            f"the synthesis cites none of the {len(members)} members it was shown "
            f"({len(stripped)} unknown id(s) stripped, {len(context_hits)} context id(s) refused as support); "
            "rejected, nothing stored", stripped + context_hits)
    support_of = [support(c.statement, [texts.get(i, "") for i in c.member_ids]) for c in claims] if texts else []
    fact_support = []
    if texts:  # a fact its cited members do not hold is dropped (issue 40), like an unsupported statement
        judged = [(f, support(f.statement, [texts.get(i, "") for i in f.member_ids])) for f in facts]
        gone += [{"kind": "fact", "statement": f.statement, "member_ids": f.member_ids,
                  "reason": f"its cited members hold {s.coverage:.0%} of its content words (needs "
                            f"{SUPPORTED_COVERAGE:.0%}; missing: {', '.join(s.missing)})"}
                 for f, s in judged if s.verdict == "unsupported"]
        fact_support = _folded_facts([(f, s) for f, s in judged if s.verdict != "unsupported"], gone)
        facts = [f for f, _ in fact_support]
    # A copy of one memory is not an insight (issue 40); a digest (issue 39) states several members'
    # facts, each in its member's words: it is a copy only when everything it says rests on one member.
    lines = [*zip(claims, support_of), *fact_support]
    copies = {c.member_ids[s.copy_of] for c, s in lines if s.copy_of is not None}
    if support_of and all(s.copy_of is not None for _, s in lines) and len(copies) == 1:
        raise Ungrounded(f"everything the insight says only restates one member ({', '.join(sorted(copies))}): "
                         "a copy of a memory is not a pattern across members; rejected, nothing stored", [])
    clean = Insight(title=_CONFIRMED_RE.sub("", insight.title).strip() or insight.title, concept=insight.concept,
                    claims=claims, facts=facts, tensions=tensions, gaps=list(insight.gaps),
                    implications=_implications(list(insight.implications), [c.statement for c in claims], gone),
                    confidence=insight.confidence)
    capped = capped_confidence(clean, members, sources)
    given = None if capped == clean.confidence else clean.confidence
    clean.confidence = capped
    out_themes = Themes.model_construct(themes=theme_list) if theme_list else Themes.model_construct(themes=[])
    return Grounded(insight=clean, themes=out_themes, cited=clean.cited_ids(), stripped=stripped,
                    context_as_support=context_hits, dropped=gone, dropped_claims=_dropped_lines(gone),
                    dropped_tensions=restated,
                    confidence_given=given, unsupported=unsupported, claim_support=_claim_support(claims, support_of))


def _dropped_lines(gone: list[dict[str, Any]]) -> int:
    """Claims and facts dropped (folded ones are kept, in the line they were folded into)."""
    return sum(1 for d in gone if d["kind"] in ("claim", "fact") and not d["reason"].startswith("folded"))


def _claim_support(claims: list[Claim], support_of: list[Support]) -> list[dict[str, Any]]:
    return [{"statement": c.statement, "coverage": s.coverage, "verdict": s.verdict,
             "restated": None if s.copy_of is None else c.member_ids[s.copy_of]} for c, s in zip(claims, support_of)]


# -- reflection (issue 14): the same guard over an entity's typed statements ---------------------
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


def supports(statement_words: set[str], memory_text: str) -> bool:
    """A memory holds at least one of the statement's claimed words (stems and shared 6-letter
    starts count, as for the summary)."""
    known = content_terms(memory_text)
    return any(_known(w, known) for w in statement_words)


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
    return unacknowledged(_CONFIRMED_RE.sub("", statement).strip())


CHAT_REASON = "a chat line (a question, thanks or an acknowledgement to the listener), not a statement about the entity"


def _judge(category: str, s: Statement, ids: list[str], texts: dict[str, str] | None, ignore: set[str],
           check: Checker | None, said: dict[str, str] | None = None) -> Verdict:
    """One statement's support, copy flag and outcome (kept / dropped with the reason). A statement
    holding a chat line is a chat turn copied, not a statement about the entity: dropped whole
    (issue 48: cutting the line out left fragments and half-chat)."""
    written = _CONFIRMED_RE.sub("", s.statement).strip()
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
            ids = _keep(s.memory_ids, shown, stripped)
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
