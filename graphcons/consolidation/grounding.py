"""The grounding guard (principle 5): an insight may cite only the member ids it was shown.

`ground` runs on every synthesis, whatever the provider, before anything is stored:

- every cited id that was not shown is stripped and counted (claims may cite members only;
  tensions may also name the labelled context, which is never support);
- a claim left without citations is dropped; a synthesis whose claims rest on none of the
  members is rejected with `Ungrounded` (the caller audits the rejection and stores nothing);
- confirmation counts are computed here, from the *distinct sources* of the cited members,
  never from how many members repeat a claim (principle 10: one source planting a claim
  three times is confirmed once); any "(confirmed N times)" the model wrote is removed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from graphcons.consolidation.synthesis.models import (
    CATEGORIES,
    Claim,
    Insight,
    Reflection,
    Statement,
    Tension,
    Theme,
    Themes,
)
from graphcons.core.errors import Ungrounded

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

    @property
    def stripped_count(self) -> int:
        return len(self.stripped) + len(self.context_as_support)

    def report(self) -> dict[str, Any]:
        return {"cited": self.cited, "stripped": self.stripped, "stripped_count": self.stripped_count,
                "context_as_support": self.context_as_support, "dropped_claims": self.dropped_claims}


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
    tensions = [Tension(description=t.description, member_ids=sorted(_keep(t.member_ids, members | context, stripped)))
                for t in insight.tensions]
    theme_list = [Theme(title=t.title, question=t.question, member_ids=sorted(_keep(t.member_ids, members, stripped)))
                  for t in (themes.themes if themes else [])]
    if not claims:
        raise Ungrounded(
            f"the synthesis cites none of the {len(members)} members it was shown "
            f"({len(stripped)} unknown id(s) stripped, {len(context_hits)} context id(s) refused as support); "
            "rejected, nothing stored", stripped + context_hits)
    clean = Insight(title=_CONFIRMED_RE.sub("", insight.title).strip() or insight.title, concept=insight.concept,
                    claims=claims, tensions=tensions, gaps=list(insight.gaps), implications=list(insight.implications),
                    confidence=insight.confidence)
    out_themes = Themes.model_construct(themes=theme_list) if theme_list else Themes.model_construct(themes=[])
    return Grounded(insight=clean, themes=out_themes, cited=clean.cited_ids(), stripped=stripped,
                    context_as_support=context_hits, dropped_claims=dropped)


# -- reflection (issue 14): the same guard over an entity's typed statements ---------------------
@dataclass
class GroundedReflection:
    reflection: Reflection  # every statement citing shown ids only
    cited: list[str]
    stripped: list[str] = field(default_factory=list)  # ids cited but never shown
    dropped_statements: int = 0  # statements left citing nothing (dropped, never stored)
    capped_statements: int = 0  # beyond [reflection] max_statements per category

    def report(self) -> dict[str, Any]:
        return {"cited": self.cited, "stripped": self.stripped, "stripped_count": len(self.stripped),
                "dropped_statements": self.dropped_statements, "capped_statements": self.capped_statements}


def ground_reflection(reflection: Reflection, shown_ids: list[str] | tuple[str, ...], *,
                      max_statements: int | None = None) -> GroundedReflection:
    """Strip unshown ids, drop statements citing nothing and repeated statements, cap each
    category; raise Ungrounded when no statement rests on a shown memory."""
    shown = set(shown_ids)
    stripped: list[str] = []
    dropped = capped = 0
    kept: dict[str, list[Statement]] = {}
    for category in CATEGORIES:
        out: list[Statement] = []
        seen: set[str] = set()
        for s in getattr(reflection, category):
            ids = _keep(s.memory_ids, shown, stripped)
            text = _CONFIRMED_RE.sub("", s.statement).strip()
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
                         f"({len(stripped)} unknown id(s) stripped, {dropped} statement(s) dropped); "
                         "rejected, nothing stored", stripped)
    clean = Reflection(summary=_CONFIRMED_RE.sub("", reflection.summary).strip(), **kept)
    return GroundedReflection(reflection=clean, cited=clean.cited_ids(), stripped=stripped,
                              dropped_statements=dropped, capped_statements=capped)
