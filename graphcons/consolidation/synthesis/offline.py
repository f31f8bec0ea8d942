"""The offline default synthesizer: deterministic, extractive, no network.

An insight is a *digest* (issue 39): what surfaces on retrieval is its text, so it carries
the facts an agent answers from, in the members' own sentences, never a keyword label:

- members that restate one fact are *folded*: connected groups of members whose embeddings'
  cosine is >= FOLD_COSINE (the prompt's `cosines`, read from the store), or, where no vector
  is known, whose content words overlap >= FOLD_WORDS (binary cosine, names of the topic holder
  left out). A group is one fact citing every member in it;
- the *claim* is the most central group's statement (centrality: the summed similarity of its
  members to all others, LexRank's degree form), the sentence of its most central member; it
  is the title and the concept's first sentence (what gets embedded first);
- the *facts* are the other groups, chosen by maximal marginal relevance (centrality minus
  MMR_PENALTY x the highest similarity to a fact already chosen) up to MAX_FACTS and
  FACT_WORDS words, then put in time order with their dates (`Insight.dated`); each is a whole
  sentence of a member (a long member gives its first sentence), never a fragment;
- members left out of every shown group are shown but uncited (never premises);
- tensions are disagreements only: inside a group, members negating what the others state,
  plus the labelled context (known conflicts and exceptions);
- gaps say what no member records (a second source; a cause and a fix for incidents);
- implications are the members' own action sentences (none when there is none).

A group of unrelated facts about one subject still gets a digest ("what is known about X");
only a prompt without two members with text gets `no_pattern`. Same members in, same
insight out: no clock, no randomness, ties broken by id and text.
"""

from __future__ import annotations

import math
import re
from functools import partial
from typing import Any

from graphcons.consolidation.synthesis.base import Synthesis, Synthesizer
from graphcons.consolidation.synthesis.models import (
    MAX_FACTS,
    Claim,
    Fact,
    Insight,
    Tension,
    Theme,
    Themes,
)
from graphcons.consolidation.synthesis.prompt import Shown, SynthesisPrompt
from graphcons.core.groups import connected_groups
from graphcons.core.memory import derived_title
from graphcons.core.text import MONTHS, WEEKDAYS, WORD_RE, content, fold, sentences, stem, tokens

NEGATIONS = frozenset("not no never without cannot can't didn't doesn't don't isn't wasn't weren't won't false "
                      "instead unlike".split())
INCIDENT_KINDS = frozenset({"incident"})
CAUSE_WORDS = ("because", "caused by", "root cause", "due to", "triggered by")
FIX_WORDS = ("fix", "fixed", "rollback", "rolled back", "roll back", "resolved", "mitigat", "runbook", "restart",
             "workaround", "revert")
ACTION_RE = re.compile(r"\b(should|must|always|never|need to|needs to|remember to|make sure|runbook|roll ?back|"
                       r"fix(?:ed)? by|workaround)\b", re.IGNORECASE)
_CALENDAR_STEMS = frozenset(stem(w) for w in WEEKDAYS | MONTHS)  # capitalised by spelling, never names


class _Member:
    def __init__(self, shown: Shown):
        self.shown = shown
        self.id = shown.id
        head = shown.title.rstrip("…").rstrip()  # a derived title is the content's start, maybe cut
        text = shown.content if shown.content.startswith(head) else f"{shown.title}. {shown.content}"
        self.text = text
        self.tokens = tokens(text)
        # token indices that open a sentence (capitalised there for grammar, not as a name)
        self.openers = {i for i, mt in enumerate(WORD_RE.finditer(text))
                        if not text[:mt.start()].rstrip() or text[:mt.start()].rstrip()[-1] in ".!?:;"}
        self.terms = {s for s, w in self.tokens if content(w)}
        lowered = text.lower()
        self.negated = any(w in NEGATIONS for w in (t.lower() for _, t in self.tokens)) or "n't" in lowered
        self.lowered = lowered

    def starts_sentence(self, i: int) -> bool:
        return i in self.openers


def _names(members: list[_Member]) -> set[str]:
    """Stems written as names wherever they occur: capitalised (not all capitals, not a number)
    every time, at least once inside a sentence (Andrew, Lisbon; not HTTP, not a sentence's
    first word)."""
    capital, lower, inside = set(), set(), set()
    for m in members:
        for i, (root, word) in enumerate(m.tokens):
            if word[:1].isupper() and not word.isupper():
                capital.add(root)
                if i > 0 and not m.starts_sentence(i):
                    inside.add(root)
            else:
                lower.add(root)
    return (capital - lower - _CALENDAR_STEMS) & inside


FOLD_COSINE = 0.8  # embedding cosine of two restatements (MiniLM; the prototype folded at 0.8-0.85)
FOLD_WORDS = 0.6  # content-word overlap (binary cosine) of two restatements when no vector is known
MMR_PENALTY = 0.5
FACT_WORDS = 160  # the facts' words in all: one retrieval item stays about a paragraph
LONG_FACT = 40  # words; a longer member gives its first sentence as its fact


def _first_sentence(text: str) -> str:
    said = sentences(text)
    if not said:
        return text.strip()
    whole = " ".join(said)
    return whole if len(whole.split()) <= LONG_FACT else said[0]


class OfflineSynthesizer(Synthesizer):
    provider = "offline"
    model = "extractive-v2"
    calls_per_synthesis = 0

    def synthesize(self, prompt: SynthesisPrompt) -> Synthesis:
        members = sorted((_Member(s) for s in prompt.members if s.content.strip() or s.title.strip()),
                         key=lambda m: m.id)
        n = len(members)
        subject = prompt.subject if prompt.subject and prompt.subject != "general" else None
        naming = _names(members) | {stem(fold(w)) for w in re.split(r"[^A-Za-z0-9]+", subject or "") if w}
        if n < 2:
            return Synthesis(themes=Themes(themes=[Theme(title=subject or "one memory", question="-",
                                                         member_ids=[m.id for m in members])]),
                             insight=None, provider=self.provider, model=self.model, calls=0,
                             no_pattern=f"no pattern: {n} member(s) with text; a digest needs two")
        sim, restates = self._similarity(members, naming, prompt.cosines)
        groups = self._fold(members, restates)
        centrality = [sum(sim[i][j] for j in range(n) if j != i) for i in range(n)]
        index = {m.id: i for i, m in enumerate(members)}

        def speaker(group: list[_Member]) -> _Member:  # the group's most central member speaks for it
            return max(group, key=lambda m: (round(centrality[index[m.id]], 6), -len(m.text), _neg_id(m.id)))

        def weight(group: list[_Member]) -> float:
            return round(max(centrality[index[m.id]] for m in group) + 0.5 * (len(group) - 1), 6)

        ranked = sorted(groups, key=lambda g: (-weight(g), speaker(g).id))
        claim_group, rest = ranked[0], ranked[1:]
        chosen = [claim_group, *self._facts(claim_group, rest, sim, index, weight, speaker)]
        claim_text = _first_sentence(speaker(claim_group).text)
        claims = [Claim(statement=claim_text, member_ids=sorted(m.id for m in claim_group))]
        # every distinct fact once, the claim's own included: it has a date too
        facts = [Fact(statement=_first_sentence(speaker(g).text), member_ids=sorted(m.id for m in g)) for g in chosen]
        cited = [m for g in chosen for m in g]
        tensions = self._tensions(chosen, prompt.context)
        gaps = self._gaps(members, cited, prompt)
        implications = self._implications(cited)
        sources = {s for m in claim_group for s in m.shown.sources}
        share = len(claim_group) / n
        confidence = round(min(0.9, 0.2 + 0.5 * share + 0.2 * min(1.0, (len(sources) - 1) / 2)), 2)
        about = subject or "this topic"
        concept = (f"{claim_text} A digest of what {n} memories record about {about}: "
                   f"{len(facts)} distinct fact(s), held as a hypothesis.")
        insight = Insight(title=derived_title(claim_text, 120), concept=concept, claims=claims, facts=facts,
                          tensions=tensions, gaps=gaps, implications=implications, confidence=confidence)
        themes = [Theme(title=derived_title(_first_sentence(speaker(g).text), 120),
                        question=f"What do the members say about {about}?", member_ids=sorted(m.id for m in g))
                  for g in chosen[:3]]
        created = {m.id: m.shown.created_at for m in members}
        from graphcons.consolidation.grounding import stating, subject_words  # it imports this package

        dated = insight.dated(created, {m.id: m.text for m in members},  # a fact is its speaker's sentence
                              partial(stating, ignore=subject_words(subject or "")))
        return Synthesis(themes=Themes(themes=themes), insight=dated, provider=self.provider,
                         model=self.model, calls=0)

    @staticmethod
    def _similarity(members: list[_Member], naming: set[str],
                    cosines: dict[tuple[str, str], float]) -> tuple[list[list[float]], list[list[bool]]]:
        """(likeness, restates) per pair: the embeddings' cosine where the prompt has it (restating at
        >= FOLD_COSINE), else content-word overlap (binary cosine over content words, the topic
        holder's names left out; restating at >= FOLD_WORDS). Likeness is in [0, 1], rounded."""
        terms = [m.terms - naming for m in members]
        n = len(members)
        sim = [[0.0] * n for _ in range(n)]
        restates = [[False] * n for _ in range(n)]
        for i in range(n):
            for j in range(i + 1, n):
                key = (members[i].id, members[j].id)
                if key in cosines:
                    v, limit = max(0.0, cosines[key]), FOLD_COSINE
                elif terms[i] and terms[j]:
                    v, limit = len(terms[i] & terms[j]) / math.sqrt(len(terms[i]) * len(terms[j])), FOLD_WORDS
                else:
                    v, limit = 0.0, 1.0
                sim[i][j] = sim[j][i] = round(v, 6)
                restates[i][j] = restates[j][i] = sim[i][j] >= limit
        return sim, restates

    @staticmethod
    def _fold(members: list[_Member], restates: list[list[bool]]) -> list[list[_Member]]:
        """Connected groups of restatements."""
        return connected_groups(members, lambda i, j: restates[i][j])

    @staticmethod
    def _facts(claim: list[_Member], groups: list[list[_Member]], sim: list[list[float]], index: dict[str, int],
               weight: Any, speaker: Any) -> list[list[_Member]]:
        """Maximal marginal relevance over the groups after the claim's: each next fact the highest
        weight minus MMR_PENALTY x its highest likeness to a fact already chosen, until MAX_FACTS or
        FACT_WORDS (the claim's words included)."""
        chosen: list[list[_Member]] = [claim]
        left = list(groups)
        words = len(_first_sentence(speaker(claim).text).split())
        while left and len(chosen) < MAX_FACTS:
            def score(g: list[_Member]) -> tuple[float, str]:
                near = max((sim[index[a.id]][index[b.id]] for c in chosen for a in g for b in c), default=0.0)
                return (round(weight(g) - MMR_PENALTY * near, 6), _neg_id(speaker(g).id))
            best = max(left, key=score)
            left.remove(best)
            size = len(_first_sentence(speaker(best).text).split())
            if words + size > FACT_WORDS:
                continue  # too long for what is left of the budget; a shorter fact may still fit
            chosen.append(best)
            words += size
        return chosen[1:]

    @staticmethod
    def _tensions(groups: list[list[_Member]], context: list[Shown]) -> list[Tension]:
        """Disagreement only: inside one fact's group, a minority of members negating what the others
        state; plus the labelled conflicts and exceptions."""
        out: list[Tension] = []
        for g in groups:
            negated = [m for m in g if m.negated]
            if negated and len(negated) * 2 < len(g):
                agree = next(m for m in g if not m.negated)
                for m in negated:
                    out.append(Tension(description=f"{m.id} disagrees: \"{_first_sentence(m.text)}\"",
                                       member_ids=[m.id, agree.id]))
        for c in context:
            rel = f" ({c.relation})" if c.relation else ""
            out.append(Tension(description=f"known conflict or exception{rel}, not support: \"{c.title}\"",
                               member_ids=[c.id]))
        return out

    @staticmethod
    def _gaps(members: list[_Member], cited: list[_Member], prompt: SynthesisPrompt) -> list[str]:
        gaps: list[str] = []
        sources = sorted({s for m in cited for s in m.shown.sources})
        if len(sources) == 1:
            gaps.append(f"All {len(cited)} cited members come from one source ({sources[0]}): "
                        "repetition is not confirmation; an independent source is missing.")
        if any(m.shown.kind in INCIDENT_KINDS for m in members):  # causes and fixes are incident questions
            if not any(w in m.lowered for m in members for w in CAUSE_WORDS):
                gaps.append("No member states a root cause.")
            if not any(w in m.lowered for m in members for w in FIX_WORDS):
                gaps.append("No member records a fix, rollback or runbook.")
        if len(cited) < len(members):
            gaps.append(f"{len(members) - len(cited)} member(s) are not in this digest (over its "
                        f"{MAX_FACTS} facts or {FACT_WORDS} words).")
        if prompt.context:
            gaps.append("Known exceptions limit where this holds; their scope is not established by the members.")
        return gaps

    @staticmethod
    def _implications(members: list[_Member]) -> list[str]:
        """The members' own action sentences ("should", "roll back", ...), at most three."""
        found: list[str] = []
        for m in sorted(members, key=lambda m: m.id):
            for sentence in sentences(m.shown.content):
                if ACTION_RE.search(sentence):
                    found.append(f"{sentence} (from {m.id})")
                    break
            if len(found) >= 3:
                break
        return found


def _neg_id(mid: str) -> tuple[int, ...]:
    """Sorts ids descending inside max(): ties go to the smallest id."""
    return tuple(-ord(c) for c in mid) + (1,)
