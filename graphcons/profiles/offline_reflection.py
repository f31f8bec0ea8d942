"""The offline reflection: deterministic and extractive, no network (issue 14, seed 004).

It fills the same typed `Reflection` an LLM would, from the memories' own sentences:

- each sentence is put in at most one category by its words: a *preference* ("prefers",
  "likes", "avoids", ... or a memory of kind preference), else a *behavior* (a habit:
  "usually", "every morning", "on Tuesdays", ...), else a *fact* (a memory of kind fact or
  decision, or a sentence saying what the entity is, has, uses, works on);
- sentences of one category that share a topical term (a content word found in at least
  two memories but not in most of them, so neither a one-off nor the entity's own name) are
  one statement: the sentence with the most of the group's shared terms speaks for it;
- a statement cites only the memories it was extracted from: the speaker's, and those of its
  group that say it too (their words support it, the guard's own `support`); sharing a topic is not
  saying it ("prefers the aisle seat" does not support "prefers window seats"), so the rest of
  the group is not cited (issue 40);
- only what the entity says is read (issue 48): a memory an assistant said (`Shown.speaker`) gives
  nothing, and a question, thanks or acknowledgement (`core.text.chat_line`) is no sentence about it;
- a sentence is whole: split at . ! ? only (never inside "Frankfurt; then Lisbon"), and a
  memory's derived title (its first sentence, cut) is not read as a sentence of its own;
- statements are ranked by how many memories they rest on, then by text; the summary
  strings the top statement of each category together.

Same memories in, same reflection out: no clock, no randomness, ties broken by id and text.
`OfflineReflector` is the offline synthesizer with this reflection added (what
`reflect.make_reflector` returns when no model is configured).
"""

from __future__ import annotations

import math
import re
from collections import Counter

from graphcons.consolidation.grounding import claim_words, support
from graphcons.consolidation.synthesis.base import Reflected
from graphcons.consolidation.synthesis.models import (
    CATEGORIES,
    MAX_STATEMENTS,
    Reflection,
    Statement,
)
from graphcons.consolidation.synthesis.offline import OfflineSynthesizer
from graphcons.consolidation.synthesis.prompt import ReflectionPrompt, Shown
from graphcons.core.groups import connected_groups
from graphcons.core.text import content, fold, sentences, stem, tokens
from graphcons.profiles.reflection_grounding import said_by_entity

PREFERENCE_RE = re.compile(
    r"\b(prefer(?:s|red|ring|ence|ences)?|(?:dis)?lik(?:e|es|ed|ing)|lov(?:e|es|ed)|enjoy(?:s|ed)?|favou?rite|"
    r"rather|hat(?:e|es|ed)|avoid(?:s|ed)?|fond of|can't stand|wants?|wish(?:es)?|insist(?:s|ed)?)\b",
    re.IGNORECASE)
_DAYS = r"(?:mon|tues|wednes|thurs|fri|satur|sun)days|weekends|weekdays|mornings|evenings|nights"
BEHAVIOR_RE = re.compile(
    rf"\b(usually|always|often|never|typically|regularly|routinely|habitually|daily|weekly|nightly|"
    rf"every\s+\w+|each\s+(?:day|morning|evening|week|month|sprint|night)|tends? to|most (?:days|mornings|weeks)|"
    rf"on\s+(?:{_DAYS})|first thing)\b", re.IGNORECASE)
FACT_RE = re.compile(r"\b(is|are|works?|lives?|based|has|have|owns?|joined|speaks?|uses?|runs?|leads?|"
                     r"belongs?|maintains?|called|named)\b", re.IGNORECASE)
FACT_KINDS = frozenset({"fact", "decision"})
# Words that say which category a sentence is in, not what it is about: never a topic.
CUE_STEMS = frozenset(stem(w) for w in """prefer prefers preferred preference like likes liked love loves loved enjoy
enjoys favorite favourite rather hate hates avoid avoids want wants wish usually always often never typically
regularly daily weekly every each said says asked told mentioned again""".split())


def _category(m: Shown, sentence: str) -> str | None:
    if m.kind == "preference" or PREFERENCE_RE.search(sentence):
        return "preferences"
    if BEHAVIOR_RE.search(sentence):
        return "behaviors"
    if m.kind in FACT_KINDS or FACT_RE.search(sentence):
        return "facts"
    return None


class _Sentence:
    def __init__(self, m: Shown, text: str, category: str | None, ignore: frozenset[str]):
        self.memory = m
        self.text = text.strip().rstrip(".")
        self.category = category
        self.terms = {s for s, w in tokens(text) if content(w) and s not in ignore}


def _topical(sentences: list[_Sentence], n_memories: int) -> Counter[str]:
    """Content terms found in at least two memories and in at most ~60 % of them."""
    df: Counter[str] = Counter()
    for mid in sorted({s.memory.id for s in sentences}):
        df.update(set().union(*(s.terms for s in sentences if s.memory.id == mid)))
    ceiling = max(2, math.ceil(0.6 * n_memories))
    return Counter({t: c for t, c in df.items() if 2 <= c <= ceiling})


def _groups(items: list[_Sentence], topical: Counter[str]) -> list[list[_Sentence]]:
    """Connected components of sentences sharing a topical term (deterministic)."""
    return connected_groups(items, lambda i, j: bool(items[i].terms & items[j].terms & topical.keys()))


def _statement(group: list[_Sentence], topical: Counter[str], ignore: frozenset[str]) -> Statement:
    shared = Counter(t for s in group for t in s.terms & topical.keys())
    speaker = min(group, key=lambda s: (-sum(shared[t] for t in s.terms), len(s.text), s.memory.id, s.text))
    ids = {speaker.memory.id} | {s.memory.id for s in group
                                 if support(speaker.text, [s.text], ignore).verdict == "supported"}
    return Statement(statement=speaker.text, memory_ids=sorted(ids))


def extract(prompt: ReflectionPrompt, max_statements: int = MAX_STATEMENTS) -> Reflection:
    members = sorted(prompt.members, key=lambda m: m.id)
    subject = prompt.subject or ""
    names = frozenset(stem(fold(w)) for w in re.split(r"[^A-Za-z0-9]+", subject) if w)
    ignore = names | CUE_STEMS
    found: list[_Sentence] = []
    for m in members:
        # what the entity itself states: no assistant turn, no question, thanks or acknowledgement (issue 48)
        for sentence in sentences(said_by_entity(m.text, m.speaker)):
            if not claim_words(sentence, names):
                continue  # no claim beyond generic words: nothing to reflect
            found.append(_Sentence(m, sentence, _category(m, sentence), ignore))
    topical = _topical(found, len(members))
    out: dict[str, list[Statement]] = {}
    for category in CATEGORIES:
        items = [s for s in found if s.category == category]
        statements = [_statement(g, topical, names) for g in _groups(items, topical)]
        statements.sort(key=lambda st: (-len(st.memory_ids), st.statement))
        out[category] = statements[:max_statements]
    return Reflection(summary=_summary(subject, members, out), **out)


def _summary(subject: str, members: list[Shown], found: dict[str, list[Statement]]) -> str:
    dates = sorted(m.created_at.date().isoformat() for m in members if m.created_at)
    span = f", {dates[0]} to {dates[-1]}" if dates else ""
    parts = [f"{subject}: what {len(members)} memories say{span}."]
    labels = {"preferences": "Prefers", "behaviors": "Habitually", "facts": "Known"}
    for category in CATEGORIES:
        if found[category]:
            top = found[category][0]
            parts.append(f"{labels[category]}: {top.statement} ({len(top.memory_ids)} memories).")
    if len(parts) == 1:
        parts.append("No preference, habit or durable fact stands out yet.")
    return " ".join(parts)


class OfflineReflector(OfflineSynthesizer):
    """The offline synthesizer, reflecting too (same insights, plus `reflect`)."""

    def reflect(self, prompt: ReflectionPrompt) -> Reflected:
        return Reflected(reflection=extract(prompt), provider=self.provider, model=self.model, calls=0)
