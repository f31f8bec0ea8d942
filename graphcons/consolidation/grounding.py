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
    Claim,
    Insight,
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
