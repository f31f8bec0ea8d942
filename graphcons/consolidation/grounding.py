"""The grounding guard (principle 5): an insight may cite only the member ids it was shown.

`ground` runs on every synthesis, whatever the provider, before anything is stored:

- every cited id that was not shown is stripped and counted (claims may cite members only;
  tensions may also name the labelled context, which is never support);
- a claim left without citations is dropped; a synthesis whose claims rest on none of the
  members is rejected with `Ungrounded` (the caller audits the rejection and stores nothing);
- confirmation counts are computed here, from the *distinct sources* of the cited members,
  never from how many members repeat a claim (principle 10: one source planting a claim
  three times is confirmed once); any "(confirmed N times)" the model wrote is removed;
- the prompt's own rules are checked where code can (issue 31): a "tension" that only restates
  a claim is dropped, and the confidence is capped at MAX_CONFIDENCE unless the members leave
  no doubt (every member cited, no tension, no gap, at least NO_DOUBT_SOURCES distinct sources);
- a reflection's summary keeps only the sentences the shown memories support (content words
  found in them): a summary claim no memory supports is dropped like an uncited statement; and a
  reflection statement keeps only the citations of memories that share a content word with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

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
from graphcons.consolidation.synthesis.offline import content_terms
from graphcons.core.errors import Ungrounded

MAX_CONFIDENCE = 0.9  # a generalisation is a hypothesis: 1.0 only when the members leave no doubt
NO_DOUBT_SOURCES = 3
RESTATED_SHARE = 0.8  # a tension whose content words are this much one claim's is that claim restated
UNSUPPORTED_SHARE = 1 / 3  # a summary sentence with more of its content words in no shown memory is dropped
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+")

_CONFIRMED_RE = re.compile(r"\s*\((?:confirmed|seen|reported)\s+(?:\d+|once|twice|thrice|\w+)\s+times?\)|"
                           r"\s*\(confirmed (?:once|twice)\)", re.IGNORECASE)


@dataclass
class Grounded:
    insight: Insight
    themes: Themes
    cited: list[str]  # member ids the claims rest on (DERIVED_FROM targets)
    stripped: list[str] = field(default_factory=list)  # ids cited but never shown, in order of appearance
    context_as_support: list[str] = field(default_factory=list)  # context ids a claim tried to cite
    dropped_claims: int = 0
    dropped_tensions: list[str] = field(default_factory=list)  # "tensions" that restated a claim
    confidence_given: float | None = None  # the model's confidence when it was capped

    @property
    def stripped_count(self) -> int:
        return len(self.stripped) + len(self.context_as_support)

    def report(self) -> dict[str, Any]:
        out = {"cited": self.cited, "stripped": self.stripped, "stripped_count": self.stripped_count,
               "context_as_support": self.context_as_support, "dropped_claims": self.dropped_claims}
        if self.dropped_tensions:
            out["dropped_tensions"] = self.dropped_tensions
        if self.confidence_given is not None:
            out["confidence_capped"] = {"given": self.confidence_given, "kept": self.insight.confidence}
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


def _root(word: str) -> str:
    # beyond the synthesizer's light stemmer: "running" / "runs", "visited" / "visit"
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if len(word) >= 4 and word[-1] == word[-2] and word[-1] not in "aeiouls":
                word = word[:-1]
            break
    return word


def _known(word: str, known: set[str]) -> bool:
    # or a shared 6-letter start: "engineering" / "engineer"
    return (word in known or _root(word) in {_root(k) for k in known}
            or (len(word) >= 6 and any(k[:6] == word[:6] for k in known if len(k) >= 6)))


def supported_sentences(text: str, memory_texts: list[str], ignore: set[str] = frozenset()) -> tuple[str, list[str]]:
    """(the sentences of `text` the memories support, the dropped ones): a sentence is dropped when
    two or more of its content words (beyond `ignore`, e.g. the entity's name), and more than
    UNSUPPORTED_SHARE of them, appear in no memory ("Ana is a software engineer" where no memory
    says so); one unmatched word is a paraphrase's, not a new claim."""
    known = set().union(*(content_terms(t) for t in memory_texts)) if memory_texts else set()
    kept, dropped = [], []
    for sentence in (s.strip() for s in _SENTENCE_RE.split(text or "")):
        if not sentence:
            continue
        words = content_terms(sentence) - ignore
        missing = [w for w in words if not _known(w, known)]
        (dropped if len(missing) >= 2 and len(missing) > UNSUPPORTED_SHARE * len(words) else kept).append(sentence)
    return " ".join(kept), dropped


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


def ground(insight: Insight, themes: Themes | None, member_ids: list[str] | tuple[str, ...],
           sources: dict[str, tuple[str, ...] | list[str]], context_ids: list[str] | tuple[str, ...] = ()) -> Grounded:
    """Strip unshown ids, compute confirmations; raise Ungrounded when no member is cited."""
    members, context = set(member_ids), set(context_ids)
    stripped: list[str] = []
    context_hits: list[str] = []
    claims: list[Claim] = []
    dropped = 0
    for c in insight.claims:
        kept = _keep(c.member_ids, members, stripped, context, context_hits)
        if not kept:
            dropped += 1
            continue
        statement = _CONFIRMED_RE.sub("", c.statement).strip()
        claims.append(Claim(statement=statement, member_ids=sorted(kept),
                            confirmations=distinct_sources(kept, sources)))
    facts = []  # a fact citing no shown member is dropped like a claim, but never decides groundedness alone
    for f in insight.facts:
        kept = _keep(f.member_ids, members, stripped, context, context_hits)
        if kept:
            facts.append(Fact(statement=_CONFIRMED_RE.sub("", f.statement).strip(), member_ids=sorted(kept)))
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
    clean = Insight(title=_CONFIRMED_RE.sub("", insight.title).strip() or insight.title, concept=insight.concept,
                    claims=claims, facts=facts, tensions=tensions, gaps=list(insight.gaps), implications=list(insight.implications),
                    confidence=insight.confidence)
    capped = capped_confidence(clean, members, sources)
    given = None if capped == clean.confidence else clean.confidence
    clean.confidence = capped
    out_themes = Themes.model_construct(themes=theme_list) if theme_list else Themes.model_construct(themes=[])
    return Grounded(insight=clean, themes=out_themes, cited=clean.cited_ids(), stripped=stripped,
                    context_as_support=context_hits, dropped_claims=dropped, dropped_tensions=restated,
                    confidence_given=given)


# -- reflection (issue 14): the same guard over an entity's typed statements ---------------------
@dataclass
class GroundedReflection:
    reflection: Reflection  # every statement citing shown ids only
    cited: list[str]
    stripped: list[str] = field(default_factory=list)  # ids cited but never shown
    dropped_statements: int = 0  # statements left citing nothing (dropped, never stored)
    capped_statements: int = 0  # beyond [reflection] max_statements per category
    dropped_summary: list[str] = field(default_factory=list)  # summary sentences no shown memory supports
    unsupported: list[str] = field(default_factory=list)  # shown ids cited for a statement they share no word with

    def report(self) -> dict[str, Any]:
        out = {"cited": self.cited, "stripped": self.stripped, "stripped_count": len(self.stripped),
               "dropped_statements": self.dropped_statements, "capped_statements": self.capped_statements}
        if self.dropped_summary:
            out["dropped_summary"] = self.dropped_summary
        if self.unsupported:
            out["unsupported_citations"] = self.unsupported
        return out


def supports(statement_words: set[str], memory_text: str) -> bool:
    """A memory supports a statement when it holds at least one of the statement's content words
    (stems and shared 6-letter starts count, as for the summary). A statement of no content word
    beyond the entity's name cannot be judged this way: every citation stands."""
    if not statement_words:
        return True
    known = content_terms(memory_text)
    return any(_known(w, known) for w in statement_words)


def ground_reflection(reflection: Reflection, shown_ids: list[str] | tuple[str, ...], *,
                      max_statements: int | None = None, texts: dict[str, str] | None = None,
                      subject: str = "") -> GroundedReflection:
    """Strip unshown ids, drop statements citing nothing and repeated statements, cap each
    category; with the shown memories' `texts`, strip each citation of a memory that shares no
    content word with its statement (a small model cites the neighbours of the memory it used, and
    approving a reflection consolidates what it cited) and drop the summary sentences the memories
    do not support; raise Ungrounded when no statement rests on a shown memory."""
    shown = set(shown_ids)
    ignore = content_terms(subject.replace("-", " "))
    stripped: list[str] = []
    unsupported: list[str] = []
    dropped = capped = 0
    kept: dict[str, list[Statement]] = {}
    for category in CATEGORIES:
        out: list[Statement] = []
        seen: set[str] = set()
        for s in getattr(reflection, category):
            ids = _keep(s.memory_ids, shown, stripped)
            text = _CONFIRMED_RE.sub("", s.statement).strip()
            if texts is not None:
                words = content_terms(text) - ignore
                unsupported += [i for i in ids if i in texts and not supports(words, texts[i])]
                ids = [i for i in ids if i not in texts or supports(words, texts[i])]
            if not ids or not text:
                dropped += 1
                continue
            if text.casefold() in seen:
                continue
            seen.add(text.casefold())
            out.append(Statement(statement=text, memory_ids=sorted(ids)))
        if max_statements is not None and len(out) > max_statements:
            capped += len(out) - max_statements
            out = out[:max_statements]
        kept[category] = out
    if not any(kept.values()):
        raise Ungrounded(f"the reflection cites none of the {len(shown)} memories it was shown "
                         f"({len(stripped)} unknown id(s) stripped, {len(unsupported)} citation(s) of a memory "
                         f"sharing no word with its statement, {dropped} statement(s) dropped); "
                         "rejected, nothing stored", stripped + unsupported)
    summary, dropped_summary = _CONFIRMED_RE.sub("", reflection.summary).strip(), []
    if texts is not None:
        summary, dropped_summary = supported_sentences(summary, [texts[i] for i in shown_ids if i in texts],
                                                       ignore=ignore)
    clean = Reflection(summary=summary, **kept)
    return GroundedReflection(reflection=clean, cited=clean.cited_ids(), stripped=stripped,
                              dropped_statements=dropped, capped_statements=capped, dropped_summary=dropped_summary,
                              unsupported=unsupported)
