"""The contradiction guard: why two near-identical texts may still disagree.

A pair the merge score would join is kept apart, and linked `CONFLICTS_WITH` for review,
when one text negates what the other states, or each mentions a number, a date or a name
the other lacks. Cosine similarity cannot see any of these (seed 003; MODELS.md).
"""

from __future__ import annotations

import re
from typing import Any

from graphcons.core.memory import derived_title

_NEGATIONS = {"not", "no", "never", "none", "nothing", "nobody", "neither", "nor", "cannot", "without",
              "não", "nunca", "nem", "nenhum", "nenhuma"}
_NUMBER_WORDS = {"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
                 "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12"}
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]
_MONTH_ABBR = {m[:3]: m for m in _MONTHS} | {"sept": "september"}
_WEEKDAYS = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
_RELATIVE_DAYS = {"yesterday", "today", "tomorrow"}
_NOT_NAMES = {"i", "the", "a", "an", "it", "he", "she", "they", "we", "you", "this", "that", "these", "those",
              "in", "on", "at", "but", "and", "or", "if", "mr", "mrs", "ms", "dr", "his", "her", "its", "their",
              "our", "my", "as", "for", "of", "to", "by", "with", "after", "before", "when", "while"}
_WORD_RE = re.compile(r"[A-Za-zÀ-ÿ][A-Za-zÀ-ÿ'’-]*|\d+(?:[.,:]\d+)*")
_NUM_RE = re.compile(r"\d+(?:[.,]\d+)*")


def _numbers(text: str, words: list[str]) -> set[str]:
    out = set()
    for raw in _NUM_RE.findall(text):
        norm = re.sub(r",(?=\d{3}\b)", "", raw).replace(",", ".")
        try:
            out.add(repr(float(norm)) if norm.count(".") <= 1 else norm)
        except ValueError:
            out.add(norm)
    out.update(repr(float(_NUMBER_WORDS[w])) for w in words if w in _NUMBER_WORDS)
    return out


def _dates(words: list[str]) -> set[str]:
    out = set()
    for w in words:
        w = w.rstrip(".")
        if w in _MONTHS or w in _WEEKDAYS or w in _RELATIVE_DAYS:
            out.add(w)
        elif w in _MONTH_ABBR and w != "may":
            out.add(_MONTH_ABBR[w])
    return out


def _names(text: str) -> set[str]:
    names = set()
    for sentence in re.split(r"(?<=[.!?:;])\s+|\n+", text):
        tokens = _WORD_RE.findall(sentence)
        for i, tok in enumerate(tokens):
            low = tok.casefold().strip("'’-")
            if i == 0 or not tok[0].isupper() or low in _NOT_NAMES:
                continue
            if low in _MONTHS or low in _WEEKDAYS or low in _MONTH_ABBR:
                continue
            names.add(low)
    return names


def _words(text: str) -> list[str]:
    text = re.sub(r"n['’]t\b", " not", text, flags=re.IGNORECASE)
    return [w.casefold() for w in _WORD_RE.findall(text)]


def contradictions(text_a: str, text_b: str) -> list[str]:
    """Why two near-identical texts may still disagree; empty when nothing is found.

    - negation: one text has a negation cue (not, n't, no, never, without, ...) the other lacks;
    - numbers / dates / names: EACH text mentions one the other does not (one text merely adding
      a detail the other leaves out is not a contradiction).
    """
    wa, wb = _words(text_a), _words(text_b)
    reasons = []
    if bool(_NEGATIONS & set(wa)) != bool(_NEGATIONS & set(wb)):
        reasons.append("negation")
    for label, sa, sb in (("numbers", _numbers(text_a, wa), _numbers(text_b, wb)),
                          ("dates", _dates(wa), _dates(wb))):
        if sa - sb and sb - sa:
            reasons.append(label)
    na, nb = _names(text_a), _names(text_b)
    # a name absent from the other text altogether (capitalised or not)
    only_a, only_b = na - set(wb), nb - set(wa)
    if only_a and only_b:
        reasons.append("names")
    return reasons



def compare_title(mem: dict[str, Any]) -> tuple[str, bool]:
    """(title used for comparison, derived?): untitled memories use their first sentence."""
    if mem.get("title_derived") or not (mem.get("title") or "").strip():
        return derived_title(mem.get("content") or ""), True
    return mem["title"], False


def guard_text(mem: dict[str, Any]) -> str:
    title, derived = compare_title(mem)
    return mem.get("content") or "" if derived else f"{title}. {mem.get('content') or ''}"
