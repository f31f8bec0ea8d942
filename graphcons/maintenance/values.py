"""What a text states, word by word: its words, figures, days, names and identifiers, the slots they
stand in, and the values two texts state differently in one slot.

Shared by the merge guard (maintenance/merge/guard.py: do two near-identical texts disagree?) and the
update pass (maintenance/updates: does a newer text change a value an older one stated?), so neither
wing borrows the other's module (issue 60).
- normalisation: case, `U.K.` -> `uk`, possessives, `n't` / `dont` -> `not`, the one stemmer of the
  package (`core/text.stem`), and capitalisation ignored as a name signal in a text written in title case;
- values: figures and spelt numbers (core/text.number_phrases), days and months of one kind, names
  (capitalised words not at a sentence start, acronyms spelt like function words), identifiers (which
  thing a text is about: "deploy 4.2", blk_123), members of one closed contrast class;
- slots: the neighbours a value stands between; two values in the same slot are one attribute's two
  values, a value only one text has is a detail.

The tokenizer is not core/text's `tokens` on purpose: it keeps what the comparison reads and core/text
drops (negations spelt out, `US` kept apart from the pronoun as `us.`, figures with their separators,
letters of any script), where core/text's serves lexical search over ASCII terms.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from typing import Callable

import jellyfish

from graphcons.core import text as toolkit
from graphcons.core.text import MONTHS as _MONTHS
from graphcons.core.text import NUMBER_WORDS as _NUMBER_WORDS
from graphcons.core.text import RELATIVE_DAYS as _RELATIVE_DAYS
from graphcons.core.text import WEEKDAYS as _WEEKDAYS
from graphcons.core.text import number_phrases, stem

NEGATIONS = {"not", "no", "never", "none", "nothing", "nobody", "neither", "nor", "cannot", "without",
              "não", "nunca", "nem", "nenhum", "nenhuma", "nowhere"}
_MONTH_ABBR = {m[:3]: m for m in _MONTHS} | {"sept": "september"}
# Function words: never content, never names (core/text.py's stop words). Negations, numbers, days and
# the opposites among them (before / after, new, few / many) are not: the guard reads them itself.
STOPWORDS = toolkit.STOPWORDS - toolkit.VALUE_WORDS
_NOT_NAMES = STOPWORDS | {"in", "on", "at", "but", "and", "or", "if", "after", "before", "when", "while"}
# Contrast sets: members of one closed class that exclude each other in one slot ("a blue car" /
# "a red car", "playing soccer" / "playing tennis", "is sitting" / "is running"). General English
# classes, not words of the dev data; a replaced word outside them is left to the verifier.
_CONTRAST_SETS = [
    "red blue green yellow orange purple pink brown grey gray black white silver gold",
    "soccer football tennis basketball baseball golf hockey volleyball cricket rugby badminton",
    "guitar piano violin drum flute trumpet saxophone cello harp clarinet",
    "breakfast lunch dinner",
    "sit stand lie walk run jump swim dance sleep crawl climb rest stop",  # what a body is doing
]
_WORD_RE = re.compile(r"[^\W\d_][\w'’-]*|\d+(?:[.,:]\d+)*", re.UNICODE)
_NUM_RE = re.compile(r"\d+(?:[.,]\d+)*")
_ABBR_RE = re.compile(r"\b(?:[A-Za-z]\.){2,}")
_NOT_RE = re.compile(r"\b(do|does|did|is|are|was|were|has|have|had|could|would|should|must|need|ca|wo|ai|sha)"
                     r"n['’]?t\b", re.IGNORECASE)
_CONNECTORS = {"of", "for", "and", "the", "&", "de", "on", "in"}  # inside an expanded acronym (Bank of England)
_CONTRAST = {stem(w): i for i, line in enumerate(_CONTRAST_SETS) for w in line.split()}


@functools.lru_cache(maxsize=4096)
def normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = _ABBR_RE.sub(lambda m: m.group(0).replace(".", ""), text)  # U.K. -> UK
    text = _NOT_RE.sub(lambda m: {"ca": "can", "wo": "will", "ai": "is", "sha": "shall"}.get(
        m.group(1).lower(), m.group(1)) + " not", text)
    text = re.sub(r"\bcannot\b", "can not", text, flags=re.IGNORECASE)
    return text.replace("’", "'")


def words(text: str) -> list[str]:
    """Case-folded word tokens of a normalised text, possessives dropped."""
    return list(_words(text))


@functools.lru_cache(maxsize=4096)  # a text is read several times per pair (differences, names, winner)
def _words(text: str) -> tuple[str, ...]:
    out = []
    raw = _WORD_RE.findall(normalise(text).replace("-", " "))  # double-decker = double decker
    shouting = _shouting(raw)
    for w in raw:
        acronym = _capital_acronym(w, shouting)
        w = w.casefold()
        if w.endswith("'s"):
            w = w[:-2]
        w = w.strip("'").replace("'", "")  # O'Neill = ONeill
        if w:
            out.append(w + "." if acronym else w)
    return tuple(out)


def _shouting(tokens: list[str]) -> bool:
    """Most words in capitals: then capitals mark nothing."""
    long = [t for t in tokens if len(t) >= 2 and t[0].isalpha()]
    return bool(long) and sum(t.isupper() for t in long) > 0.5 * len(long)


def _capital_acronym(token: str, shouting: bool) -> bool:
    """An acronym spelt like a function word ("US" / "U.S.", "IT", "WHO"): a name, kept apart from the
    pronoun "us" (as "us."); a capitalised negation ("NOT") stays a negation."""
    low = token.casefold()
    return (not shouting and len(token) >= 2 and token.isalpha() and token.isupper() and low in STOPWORDS
            and low not in NEGATIONS)


def content_stems(ws: list[str]) -> list[str]:
    """Content words (no function words, negations or numbers: those have their own checks), stemmed."""
    return [stem(w) for w in ws if w not in STOPWORDS and w not in NEGATIONS and w not in _NUMBER_WORDS
            and not w[0].isdigit()]


def _figure(raw: str) -> str:
    """A figure as written ("1,500", "4.2", "4,2") as one value's text ("1500.0", "4.2")."""
    norm = re.sub(r",(?=\d{3}\b)", "", raw).replace(",", ".")
    try:
        return repr(float(norm)) if norm.count(".") <= 1 else norm
    except ValueError:
        return norm


def numbers(text: str, ws: list[str]) -> set[str]:
    """The values a text states: its figures and its spelt numbers of any size (core/text.number_phrases:
    "fifteen", "twenty-five", "2 million"; a figure a scale word multiplies counts once, as the product)."""
    phrases = number_phrases(ws)
    found = Counter(_figure(raw) for raw in _NUM_RE.findall(text))
    found.subtract(_figure(ws[start]) for start, _, _ in phrases if ws[start][0].isdigit())
    return {x for x, n in found.items() if n > 0} | {repr(value) for _, _, value in phrases}


def date_kind(day: str) -> str:
    """relative (yesterday), weekday or month: only two of one kind can contradict each other; "yesterday"
    and "Sunday" may be the same day, told on another day."""
    return "relative" if day in _RELATIVE_DAYS else "weekday" if day in _WEEKDAYS else "month"


def dates(ws: list[str]) -> set[str]:
    out = set()
    for w in ws:
        w = w.rstrip(".")
        if w in _MONTHS or w in _WEEKDAYS or w in _RELATIVE_DAYS:
            out.add(w)
        elif w in _MONTH_ABBR and w != "may":
            out.add(_MONTH_ABBR[w])
    return out


# Nouns that name a thing by the number after them ("deploy 4.2", "task 5", "block 17", "PR #12"): the
# number says WHICH thing the text is about, not a value of it. English closed list of naming nouns of
# software and operations (not words of the dev data).
_NAMING_NOUNS = {stem(w) for w in """version v release build deploy deployment rollout patch revision rev commit block blk task
stage job run attempt container executor worker thread process pid tid uid gid node host instance pod shard
partition replica ticket issue bug incident pr id session request order invoice case chapter section line
port variable""".split()}
_CAMEL_RE = re.compile(r"[a-z][A-Z]")  # an identifier written in camelCase (onStandStepChanged, PacketResponder)


@functools.lru_cache(maxsize=4096)
def identifiers(text: str) -> frozenset[str]:
    """Tokens that say which thing a text is about rather than what is true of it: a word with digits
    (blk_123, attempt_01, v4), an address or dotted version (10.0.0.1, 1.2.3), a time to the second (a moment: 05:47:42), a long number (an id, a port
    or a timestamp: five digits or more, no separators), a number right after a naming noun ("deploy 4.2",
    "task 5") or a camelCase name, `#12`. Two texts that each name a thing the other does not are about
    two things (two deploys, two blocks of one log template): not one thing with two values."""
    tokens = _WORD_RE.findall(normalise(text).replace("-", " "))
    out = {m.group(1) for m in re.finditer(r"#(\d+)", text)}
    for i, t in enumerate(tokens):
        if t[0].isdigit():
            prev = tokens[i - 1] if i else ""
            if t.count(".") >= 2 or t.count(":") >= 2 or (t.isdigit() and len(t) >= 5) or stem(prev.casefold()) in _NAMING_NOUNS \
                    or _CAMEL_RE.search(prev):
                out.add(t)
        elif any(c.isdigit() for c in t):
            out.add(t.casefold())
    return frozenset(out)


def _name_variant(x: str, y: str) -> bool:
    """Two spellings of one name: close in spelling (Jaro-Winkler >= 0.9), or, for names of five letters
    or more still close in spelling (>= 0.8), the same sound key (metaphone, or NYSIIS past the first
    letter): Gaddafi / Qadhafi, Mohammed / Muhammad, Qaeda / Qaida; accents aside (José / Jose). Kerry /
    Carey sound alike but are spelt too differently (0.6) to be one name."""
    x, y = _deaccent(x), _deaccent(y)
    jw = jellyfish.jaro_winkler_similarity(x, y)
    if x == y or jw >= 0.9:
        return True
    if jw < 0.8 or min(len(x), len(y)) < 5 or not x.isalpha() or not y.isalpha():
        return False
    return jellyfish.metaphone(x) == jellyfish.metaphone(y) or jellyfish.nysiis(x)[1:] == jellyfish.nysiis(y)[1:]


@functools.lru_cache(maxsize=1 << 14)
def _deaccent(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def absent_names(names: set[str], ws: list[str], other_stems: set[str]) -> set[str]:
    """Names of one text the other lacks altogether: not as a word (any case or inflection),
    not written together ("VisualBasic"), not spelt a little differently (Jaro-Winkler >= 0.9)."""
    return {n for n in names if not _name_in(n, ws, other_stems)}


def _name_in(name: str, ws: list[str], other_stems: set[str]) -> bool:
    squashed = "".join(ws)
    return (name in ws or stem(name) in other_stems or (len(name) >= 3 and name in squashed)
            or any(_name_variant(name, w) for w in ws if abs(len(w) - len(name)) <= 2))


def number_tokens(ws: list[str], values: set[str]) -> set[str]:
    """The tokens of `ws` that spell one of `values` (as numbers normalises them): a figure, or every word
    of a spelt number ("twenty", "five"; not its "and")."""
    out = {w for w in ws if w[0].isdigit() and numbers(w, [w]) & values}
    for start, end, value in number_phrases(ws):
        if repr(value) in values:
            out.update(w for w in ws[start:end] if w != "and")
    return out


def date_tokens(ws: list[str], values: set[str]) -> set[str]:
    return {w for w in ws if dates([w]) & values}


def _rounds_to(fine: str, coarse: str) -> bool:
    """`coarse` is `fine` rounded to fewer digits (6.32 / 6.3, 17.3 / 17): the same figure restated.
    A whole number counts as rounded only from 10 up (4.2 / 4 may be two versions)."""
    try:
        f, c = float(fine), float(coarse)
    except ValueError:
        return False
    def places(v: str) -> int:
        return 0 if "." not in v or v.endswith(".0") else len(v.split(".")[1])
    pc = places(coarse)
    return places(fine) > pc and (pc >= 1 or c >= 10) and abs(f - c) <= 0.5 * 10 ** -pc + 1e-9


def unrounded(ua: set[str], ub: set[str]) -> tuple[set[str], set[str]]:
    """The one-sided numbers of each text less those the other restates rounded."""
    same = {(x, y) for x in ua for y in ub if _rounds_to(x, y) or _rounds_to(y, x)}
    return ua - {x for x, _ in same}, ub - {y for _, y in same}


def _tokens(text: str) -> list[str]:
    """Word tokens as written (case kept), possessives dropped: for names and acronyms."""
    return [t.replace("’", "'").removesuffix("'s").strip("'").replace("'", "")
            for t in _WORD_RE.findall(normalise(text).replace("-", " "))]


def _expansion(acronym: str, tokens: list[str]) -> set[str]:
    """The capitalised words of `tokens` whose initials spell `acronym` (CDC: Centers for Disease
    Control; connectors such as "of" may sit inside), case-folded; empty when none does."""
    letters = acronym.casefold()
    for start in range(len(tokens)):
        i, used = start, []
        while i < len(tokens) and len(used) < len(letters):
            t = tokens[i]
            if used and t.casefold() in _CONNECTORS:
                i += 1
                continue
            if not t or not t[0].isupper() or t[0].casefold() != letters[len(used)]:
                break
            used.append(t.casefold())
            i += 1
        if len(used) == len(letters):
            return set(used)
    return set()


def acronyms(text_a: str, text_b: str) -> tuple[set[str], set[str]]:
    """Words of each text that are one thing written as an acronym in one and spelt out in the
    other (UN / United Nations): aligned, not one-sided, and not two different names."""
    ta, tb = _tokens(text_a), _tokens(text_b)
    out_a, out_b = set(), set()
    for mine, other, out_mine, out_other in ((ta, tb, out_a, out_b), (tb, ta, out_b, out_a)):
        for t in set(mine):
            if 2 <= len(t) <= 6 and t.isalpha() and t.isupper():
                spelt = _expansion(t, other)
                if spelt:
                    out_mine.update({t.casefold(), t.casefold() + "."})  # "us." as words() spells US
                    out_other.update(spelt)
    return out_a, out_b


def _title_case(text: str) -> bool:
    """Most longer words capitalised: capitals then carry no name signal (a headline)."""
    long = [w for w in _WORD_RE.findall(text)[1:] if len(w) > 3 and not w[0].isdigit()]
    return len(long) >= 3 and sum(w[0].isupper() for w in long) >= 0.75 * len(long)


@functools.lru_cache(maxsize=4096)  # pure; a memory's text is compared with each of its candidates
def names(text: str) -> frozenset[str]:
    if _title_case(text):
        return frozenset()
    names = set()
    shouting = _shouting(_WORD_RE.findall(normalise(text)))
    for sentence in re.split(r"(?<=[.!?:;])\s+|\n+", normalise(text).replace("-", " ")):
        tokens = _WORD_RE.findall(sentence)
        for i, tok in enumerate(tokens):
            low = tok.casefold().replace("’", "'").removesuffix("'s").strip("'").replace("'", "")
            if _capital_acronym(tok, shouting):
                low += "."  # US, as words() spells it
            elif i == 0 or not tok[0].isupper() or low in _NOT_NAMES:
                continue
            if low in _MONTHS or low in _WEEKDAYS or low in _MONTH_ABBR:
                continue
            names.add(low)
    return frozenset(names)


def contrasts(only_a: set[str], only_b: set[str], wa: list[str], wb: list[str]) -> list[str]:
    """Two members of one contrast set, one only in each text, in the same place (next to the same
    content word): "a soccer ball" / "a tennis ball" are two balls."""
    found = []
    for x in sorted(only_a):
        for y in sorted(only_b):
            if x in _CONTRAST and _CONTRAST.get(y) == _CONTRAST[x] and x != y \
                    and content_neighbours(wa, x) & content_neighbours(wb, y):
                found.append(f"{x}/{y}")
    return found


def content_neighbours(ws: list[str], target: str) -> set[tuple[str, str]]:
    """The nearest content word (stemmed) before and after each occurrence of the stem `target`."""
    out = set()
    for i, w in enumerate(ws):
        if stem(w) == target:
            before = next((stem(x) for x in reversed(ws[:i]) if x not in STOPWORDS), "^")
            after = next((stem(x) for x in ws[i + 1:] if x not in STOPWORDS), "$")
            out |= {("before", before), ("after", after)}
    return out


def same_slot(wa: list[str], ua: set[str], wb: list[str], ub: set[str], *, loose: bool = False) -> bool:
    """A unique item of each text in the same slot: the content word before or after it is the same, or
    both neighbours are ("handled by Priya." / "by Marco."). A function word alone anchors nothing: in
    "Tuesday: the client confirmed ..." / "Wednesday: the deadline is ..." the days only date two notes.
    `loose`: one neighbour of any kind ("with Chelsea at home" / "with Everton on Sunday")."""
    return bool(_slots(wa, ua, loose) & _slots(wb, ub, loose))


def _slots(ws: list[str], items: set[str], loose: bool = False, key: Callable[[str], str] = str) -> set[tuple[str, ...]]:
    """The slots the `items` of `ws` stand in: their neighbours, each read through `key` (stem: "4 projects" /
    "5th project" share a slot)."""
    out = set()
    for i, w in enumerate(ws):
        if w in items:
            before = ws[i - 1] if i > 0 else "^"
            after = ws[i + 1] if i + 1 < len(ws) else "$"
            if before not in items and after not in items:
                out.add(("both", key(before), key(after)))
            if before not in items and (loose or before not in STOPWORDS) and before != "^":
                out.add(("before", key(before)))
            if after not in items and (loose or after not in STOPWORDS) and after != "$":
                out.add(("after", key(after)))
    return out


_ONE = {"a", "an", "one", "single"}


def count_differs(wa: list[str], wb: list[str]) -> bool:
    """One thing in one text, several of the same in the other, in the same slot: "a server failed" /
    "two servers failed" (a / one and a count word or figure >= 2 right before the same noun, with the
    same word before the count or after the noun). "a year or two later" / "within two years" is not."""
    return bool(count_changes(wa, wb))


def count_changes(wa: list[str], wb: list[str]) -> list[tuple[str, str, str]]:
    """(the "a" / "one" of `wa`, the count of `wb`, the noun's stem) of each `count_differs` finds."""
    def counted(ws: list[str], pick) -> dict[str, tuple[str, set[tuple[str, str]]]]:
        out: dict[str, tuple[str, set[tuple[str, str]]]] = {}
        for i, w in enumerate(ws[:-1]):
            noun = ws[i + 1]
            if pick(w) and noun not in STOPWORDS and noun not in _NUMBER_WORDS and not noun[0].isdigit():
                after = stem(ws[i + 2]) if i + 2 < len(ws) else "$"
                out.setdefault(stem(noun), (w, set()))[1].update({("before", ws[i - 1] if i else "^"), ("after", after)})
        return out
    def several(w: str) -> bool:
        value = _NUMBER_WORDS.get(w, w)
        return value.isdigit() and int(value) >= 2
    one, many = counted(wa, lambda w: w in _ONE), counted(wb, several)
    return [(one[n][0], many[n][0], n) for n in sorted(one.keys() & many.keys()) if one[n][1] & many[n][1]]


@dataclass(frozen=True)
class ValueChange:
    """One value of one text where the other text states another in the same slot (issue 51)."""

    kind: str  # numbers | dates | names | contrast
    value_a: str
    value_b: str
    anchor: tuple[str, ...]  # the shared slot: ("after", "project"), ("both", "tri", "different") (stems)


_ORDINAL_RE = re.compile(r"\b(\d+)(?:st|nd|rd|th)\b")
# A day of a month ("on the 15th of April", "December 24th", "on 7/10") dates an event: a figure of no attribute.
_MONTH_WORDS = "|".join(sorted(m.capitalize() for m in _MONTHS | set(_MONTH_ABBR)))  # "May", never the verb
_DAY_OF_MONTH_RES = [
    (re.compile(r"\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b"), " "),
    (re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?(?=\s+(?:of\s+)?(?:{_MONTH_WORDS})\b)"), " "),
    (re.compile(rf"\b({_MONTH_WORDS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b(?!\s*,?\s*\d)"), r"\1"),
]
_PLURAL_DAY_RE = re.compile(r"\b(" + "|".join(_WEEKDAYS) + r")s\b", re.IGNORECASE)


def changed_values(text_a: str, text_b: str) -> list[ValueChange]:
    """The values one text states where the other states another, in the same slot (neighbours compared by
    stem, so "4 projects" / "my 5th project" share one; a run of names is one value): figures (a rounding
    aside; identifiers such as "deploy 4.2" name a thing, not a value), days or months of one kind, names,
    two members of one contrast set. What `differences` calls numbers / dates / names / contrast, without
    asking that the rest of the two texts be the same: an update's two sentences usually say other things
    besides (maintenance.updates)."""
    text_a, text_b = (_PLURAL_DAY_RE.sub(r"\1", _ORDINAL_RE.sub(r"\1", _without_days_of_month(t)))
                      for t in (text_a, text_b))
    wa, wb = words(text_a), words(text_b)
    xa, xb = numbers(normalise(text_a), wa), numbers(normalise(text_b), wb)
    ua, ub = unrounded(xa - xb, xb - xa)
    out = _paired("numbers", wa, number_tokens(wa, ua) - identifiers(text_a),
                  wb, number_tokens(wb, ub) - identifiers(text_b))
    out += [ValueChange("numbers", x, y, ("after", noun)) for x, y, noun in count_changes(wa, wb)]
    out += [ValueChange("numbers", x, y, ("after", noun)) for y, x, noun in count_changes(wb, wa)]
    da, db = dates(wa), dates(wb)
    for kind in ("relative", "weekday", "month"):
        oa, ob = {d for d in da - db if date_kind(d) == kind}, {d for d in db - da if date_kind(d) == kind}
        if oa and ob:
            out += _paired("dates", wa, date_tokens(wa, oa), wb, date_tokens(wb, ob))
    sa, sb = set(content_stems(wa)), set(content_stems(wb))
    na, nb = one_sided_names(text_a, text_b)
    out += _paired("names", wa, na, wb, nb)
    for pair in contrasts(sa - sb, sb - sa, wa, wb):
        x, y = pair.split("/")
        near = sorted(n for _, n in content_neighbours(wa, x) & content_neighbours(wb, y))
        out.append(ValueChange("contrast", x, y, ("near", *near)))
    return out


def _without_days_of_month(text: str) -> str:
    for rx, by in _DAY_OF_MONTH_RES:
        text = rx.sub(by, text)
    return text


def _runs(ws: list[str], items: set[str]) -> list[tuple[int, int]]:
    """The stretches [start, end) of consecutive words of `ws` that are all `items`."""
    out, start = [], None
    for i, w in enumerate([*ws, ""]):
        if w in items and start is None:
            start = i
        elif w not in items and start is not None:
            out.append((start, i))
            start = None
    return out


def _run_slots(ws: list[str], run: tuple[int, int]) -> set[tuple[str, ...]]:
    """The slot of one run of values: its neighbours (stems); a function word alone anchors nothing."""
    before = ws[run[0] - 1] if run[0] > 0 else "^"
    after = ws[run[1]] if run[1] < len(ws) else "$"
    out = {("both", stem(before), stem(after))}
    if before not in STOPWORDS and before != "^":
        out.add(("before", stem(before)))
    if after not in STOPWORDS and after != "$":
        out.add(("after", stem(after)))
    return out


def _paired(kind: str, wa: list[str], ua: set[str], wb: list[str], ub: set[str]) -> list[ValueChange]:
    """Each run of one-sided values of `wa` with each run of `wb` that stands in the same slot."""
    out = []
    runs_b = [(" ".join(wb[r[0]:r[1]]), _run_slots(wb, r)) for r in _runs(wb, ub)]
    for ra in _runs(wa, ua):
        slots_a, value_a = _run_slots(wa, ra), " ".join(wa[ra[0]:ra[1]])
        for value_b, slots_b in runs_b:
            shared = slots_a & slots_b
            if shared:
                out.append(ValueChange(kind, value_a, value_b, max(shared, key=lambda s: (len(s), s))))
    return out


def one_sided_names(text_a: str, text_b: str) -> tuple[set[str], set[str]]:
    """The names each text has that the other lacks altogether (any case, inflection or close spelling)."""
    wa, wb = words(text_a), words(text_b)
    return (absent_names(set(names(text_a)) - _FIRST_PERSON, wb, set(content_stems(wb))),
            absent_names(set(names(text_b)) - _FIRST_PERSON, wa, set(content_stems(wa))))


_FIRST_PERSON = {"ive", "im", "id", "ill"}  # "I've", "I'm", ...: capitalised, never a name
