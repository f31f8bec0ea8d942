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
  no doubt (every member cited, no tension, no gap, at least NO_DOUBT_SOURCES distinct sources).

The word-level checks here (`support`, `claim_words`, `keep_shown`, `CONFIRMED_RE`) are shared:
a reflection's statements go through the same ones (graphcons.profiles.reflection_grounding).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from graphcons.consolidation.synthesis.models import Claim, Fact, Insight, Tension, Theme, Themes
from graphcons.core.errors import Ungrounded
from graphcons.core.text import GENERIC_STEMS, content_terms

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
#: A "(confirmed N times)" a model wrote: grounding counts confirmations, so it is removed.
CONFIRMED_RE = re.compile(r"\s*\((?:confirmed|seen|reported)\s+(?:\d+|once|twice|thrice|\w+)\s+times?\)|"
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


def confirmation_phrase(n: int) -> str:
    return "confirmed once" if n == 1 else f"confirmed {n} times"


def distinct_sources(ids: list[str], sources: dict[str, tuple[str, ...] | list[str]]) -> int:
    """How many different sources stand behind these members (repetition is not confirmation)."""
    return len({s for i in ids for s in sources.get(i, ())})


def keep_shown(ids: list[str], allowed: set[str], stripped: list[str], context: set[str] | None = None,
               context_hits: list[str] | None = None) -> list[str]:
    """The ids that were shown (`allowed`), once each, in order; the rest are added to `stripped`,
    or to `context_hits` when they name the labelled context (never support)."""
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
        kept = keep_shown(line.member_ids, members, stripped, context, context_hits)
        if not kept:
            gone.append({"kind": kind, "statement": line.statement, "member_ids": list(line.member_ids),
                         "reason": "cites no member it was shown"})
            return None
        statement = CONFIRMED_RE.sub("", line.statement).strip()
        return statement, sorted(_narrowed(kept, statement, texts, ignore, unsupported) if texts else kept)

    for st, ids in filter(None, (cited("claim", c) for c in insight.claims)):
        claims.append(Claim(statement=st, member_ids=ids, confirmations=confirmations(st, ids, texts, sources, ignore)))
    # a fact citing no shown member is dropped like a claim, but never decides groundedness alone
    facts = [Fact(statement=st, member_ids=ids) for st, ids in filter(None, (cited("fact", f) for f in insight.facts))]
    said = [c.statement for c in claims]
    restated = [t.description for t in insight.tensions if restates_claim(t.description, said)]
    tensions = [Tension(description=t.description,
                        member_ids=sorted(keep_shown(t.member_ids, members | context, stripped)))
                for t in insight.tensions if t.description not in restated]
    theme_list = [Theme(title=t.title, question=t.question,
                        member_ids=sorted(keep_shown(t.member_ids, members, stripped)))
                  for t in (themes.themes if themes else [])]
    if not claims:
        raise Ungrounded(
            f"the synthesis cites none of the {len(members)} members it was shown "
            f"({len(stripped)} unknown id(s) stripped, {len(context_hits)} context id(s) refused as support); "
            "rejected, nothing stored", stripped + context_hits)
    support_of = [support(c.statement, [texts.get(i, "") for i in c.member_ids]) for c in claims] if texts else []
    fact_support = _held_facts(facts, texts, gone) if texts else []
    if texts:
        facts = [f for f, _ in fact_support]
        _refuse_a_copy([*zip(claims, support_of), *fact_support])
    clean = Insight(title=CONFIRMED_RE.sub("", insight.title).strip() or insight.title, concept=insight.concept,
                    claims=claims, facts=facts, tensions=tensions, gaps=list(insight.gaps),
                    implications=_implications(list(insight.implications), [c.statement for c in claims], gone),
                    confidence=insight.confidence)
    capped = capped_confidence(clean, members, sources)
    given = None if capped == clean.confidence else clean.confidence
    clean.confidence = capped
    out_themes = Themes.model_construct(themes=theme_list) if theme_list else Themes.model_construct(themes=[])
    return Grounded(insight=clean, themes=out_themes, cited=clean.cited_ids(), stripped=stripped,
                    context_as_support=context_hits, dropped=gone, dropped_claims=_dropped_lines(gone),
                    dropped_tensions=restated, confidence_given=given, unsupported=unsupported,
                    claim_support=_claim_support(claims, support_of))


def _held_facts(facts: list[Fact], texts: dict[str, str], gone: list[dict[str, Any]]) -> list[tuple[Fact, Support]]:
    """The facts their cited members hold, each with its support, those restating one member folded;
    a fact they do not hold is dropped (issue 40), like an unsupported statement, and listed in `gone`."""
    judged = [(f, support(f.statement, [texts.get(i, "") for i in f.member_ids])) for f in facts]
    gone += [{"kind": "fact", "statement": f.statement, "member_ids": f.member_ids,
              "reason": f"its cited members hold {s.coverage:.0%} of its content words (needs "
                        f"{SUPPORTED_COVERAGE:.0%}; missing: {', '.join(s.missing)})"}
             for f, s in judged if s.verdict == "unsupported"]
    return _folded_facts([(f, s) for f, s in judged if s.verdict != "unsupported"], gone)


def _refuse_a_copy(lines: list[tuple[Claim | Fact, Support]]) -> None:
    """A copy of one memory is not an insight (issue 40); a digest (issue 39) states several members'
    facts, each in its member's words: it is a copy only when everything it says rests on one member."""
    copies = {c.member_ids[s.copy_of] for c, s in lines if s.copy_of is not None}
    if all(s.copy_of is not None for _, s in lines) and len(copies) == 1:
        raise Ungrounded(f"everything the insight says only restates one member ({', '.join(sorted(copies))}): "
                         "a copy of a memory is not a pattern across members; rejected, nothing stored", [])


def _dropped_lines(gone: list[dict[str, Any]]) -> int:
    """Claims and facts dropped (folded ones are kept, in the line they were folded into)."""
    return sum(1 for d in gone if d["kind"] in ("claim", "fact") and not d["reason"].startswith("folded"))


def _claim_support(claims: list[Claim], support_of: list[Support]) -> list[dict[str, Any]]:
    return [{"statement": c.statement, "coverage": s.coverage, "verdict": s.verdict,
             "restated": None if s.copy_of is None else c.member_ids[s.copy_of]} for c, s in zip(claims, support_of)]


def supports(statement_words: set[str], memory_text: str) -> bool:
    """A memory holds at least one of the statement's claimed words (stems and shared 6-letter
    starts count, as for the summary)."""
    known = content_terms(memory_text)
    return any(_known(w, known) for w in statement_words)
