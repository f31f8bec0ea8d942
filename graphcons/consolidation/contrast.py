"""Contrast split (issue 12): a cluster made of two groups that differ in one slot is two clusters.

The embedder cannot see some seams: MiniLM places statements one word apart ("session opened
for user X" / "session closed for user X") at cosine 0.9-0.99, and memories that share an
identifier look alike whatever they say. The texts show the seam. A cluster is split in two when
- a word is in every member of one side and in none of the other, and another word is in
  every member of the other side and in none of the first (a contrast, not a word only some
  members use), each side at least `min_size` members, and
- the two words fill the same slot: the same word or value precedes them in every member of
  both sides, or follows them ("session _opened_ / _closed_ for user").
Words are the letter runs of tokens without a digit, outside the stop words (core/text.py): a
token with a digit is a value or an identifier (attempt_0020_m_01, 10.0.0.7, uid=0), never a
contrast; nor is a month or a weekday (dates are values too), nor a function word ("Thank
you" / "Do you" is style, not a seam). A topical cluster of conversational memories has no
contrast in a shared frame (none among 57 word-sharing groups of memorybank users), so it
stays whole.

The most balanced contrast wins (ties: the words in order); the gate gates each side on its
own and may split it again. Pure and deterministic: it reads only the member texts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphcons.core.text import MONTHS, STOPWORDS, WEEKDAYS

LETTERS = re.compile(r"[^\W\d_]+")
VALUE = "<value>"  # a token with a digit, in a slot's context
CALENDAR = frozenset({*MONTHS, *WEEKDAYS, *(w[:3] for w in (*MONTHS, *WEEKDAYS)), "sept"})
# Stopwords that name a direction, an order or a state change are what a slot contrasts
# (Before / After Scheduling, from NEW to ..., turned on / off): they count as words here.
DIRECTIONS = frozenset("before after new up down in out on off over under into from to".split())
FUNCTION_WORDS = STOPWORDS - DIRECTIONS


@dataclass(frozen=True)
class Contrast:
    sides: tuple[tuple[str, ...], tuple[str, ...]]  # member ids (sorted) of each side
    words: tuple[str, str]  # the word every member of side 0 has and none of side 1, and vice versa


def sequence(text: str) -> list[str]:
    """The text as words (casefolded letter runs of digit-free tokens) and value placeholders."""
    out: list[str] = []
    for token in text.casefold().split():
        if any(c.isdigit() for c in token):
            out.append(VALUE)
        else:
            out.extend(LETTERS.findall(token))
    return out


def _words(seq: list[str]) -> frozenset[str]:
    return frozenset(w for w in seq if w != VALUE and len(w) >= 2 and w not in CALENDAR and w not in FUNCTION_WORDS)


def _contexts(seq: list[str], word: str) -> tuple[set[str], set[str]]:
    """The words before and after each occurrence of `word`; the text's edges are no context
    (any first word "fills the slot" of any other: Hi / Hello, Thank / Do)."""
    at = [i for i, w in enumerate(seq) if w == word]
    return {seq[i - 1] for i in at if i > 0}, {seq[i + 1] for i in at if i + 1 < len(seq)}


def _same_slot(seqs: dict[str, list[str]], side: list[str], word: str, other: list[str], opposite: str) -> bool:
    lefts, rights = [], []
    for ids, w in ((side, word), (other, opposite)):
        for m in ids:
            left, right = _contexts(seqs[m], w)
            lefts.append(left)
            rights.append(right)
    return bool(set.intersection(*lefts)) or bool(set.intersection(*rights))


def find(texts: dict[str, str], min_size: int) -> Contrast | None:
    """The most balanced contrast among these members (id -> text), or None."""
    ids = sorted(texts)
    n = len(ids)
    if n < 2 * min_size:
        return None
    seqs = {m: sequence(texts[m]) for m in ids}
    words = {m: _words(seqs[m]) for m in ids}
    count: dict[str, int] = {}
    for m in ids:
        for w in words[m]:
            count[w] = count.get(w, 0) + 1
    best: tuple[tuple[int, str, str], Contrast] | None = None
    for w in sorted(count):
        if not min_size <= count[w] <= n - min_size:
            continue
        side = [m for m in ids if w in words[m]]
        other = [m for m in ids if w not in words[m]]
        used_by_side = frozenset().union(*(words[m] for m in side))
        shared_other = frozenset.intersection(*(words[m] for m in other)) - used_by_side
        opposite = next((u for u in sorted(shared_other) if _same_slot(seqs, side, w, other, u)), None)
        if opposite is None:
            continue
        key = (-min(len(side), len(other)), *sorted((w, opposite)))
        if best is None or key < best[0]:
            first = side[0] < other[0]
            best = (key, Contrast(sides=(tuple(side), tuple(other)) if first else (tuple(other), tuple(side)),
                                  words=(w, opposite) if first else (opposite, w)))
    return best[1] if best else None
