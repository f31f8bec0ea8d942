"""Offline, deterministic detection of updates (issue 51 item 1).

An update: a newer memory states a new value for what an older memory of the same namespace and
subject stated ("I've tried three different ones" -> "I've tried four different ones so far").
Chat turns are long (LongMemEval's median is 105 words), so the unit compared is the sentence
(core/text.sentences, list markers and headings dropped), not the memory:

1. Order. A memory's time is its `event_start` (core/eventtime, stored by admission), else its
   `created_at`. Two memories are ordered only when the newer is later on another day both by that
   time and by when it was said (`created_at`): on one day time decides nothing, and a contradiction
   stays the merge guard's conflict. When the two clocks disagree, only a figure the later-said sentence
   counts up to when it is said orders them ("I've lost 10 pounds since I started 3 months ago" after
   "I've lost 5 pounds in the past month": the count's start is no time the count held); the
   proposal's `newer_since` is then when it was said.
2. The speaker's own statement: the sentence speaks in the first person (I, my, we, ...). Advice,
   lists and questions addressed to the other party state no value of the speaker's.
3. Same attribute. Two sentences share at least `MIN_SHARED` content words that are not generic
   speech (core/text.GENERIC), covering at least `MIN_COVER` of the shorter sentence's; or
   `MIN_SHARED_ANCHORED` when the value stands between the same two words in both, one a content word,
   and neither sentence dates anything ("tried [three] different" / "tried [four] different").
4. Different value. The value comparison the merge guard uses too (maintenance/values.py: changed_values): a figure, a day, a
   name or a member of one contrast set that each sentence states where the other states another,
   with the same word next to it in both ("tried [three] different" / "tried [four] different").
   A day of a month dates an event and is no value.
5. One thing, one state: no other name one-sided in each sentence with one next to the value ("70
   hours playing Assassin's Creed" / "30 hours playing The Last of Us": two games); not two sentences
   each dating its own event on days that do not meet; not a goal against a state (GOALS: "aimed to
   raise $200" / "raised $250"); not a value imagined or told (UNREAL right before it: "a taxi would cost
   $60"; HEARSAY anywhere before it: "my friend told me it's $10"); a value that is not a figure, or a
   time of day ("10 AM" dates an occasion), needs the newer sentence to say it is current (CURRENT: "now",
   "currently", "switched", ...) or a habit (HABIT: "on Fridays", "every week"); with the parser, not a
   newer value told of one past occasion
   (frames.episode: "I had an appointment at 10 AM", "I caught 7 fish"; a tally up to now, "I've tried
   four", or a result reached, "I just finished my 5th", is no occasion).

6. Said in few words (issue 62): a pair the rules above miss because the two share no three words ("I live
   in Paris" / "I moved to Berlin") is read by its parse (frames.py: the value slot of a verb of state,
   a role, a switch "from X to Y", a count of what one has or has done up to now, a value said to hold
   no more, the weekdays of a schedule), when the newer memory says a value is new, current or ended, or a
   habit. Needs the parser (the `cards` extra); without it, rules 1-5 alone.
7. A tally (issue 62): two sentences that each count one noun up to now ("27 different species so far" /
   "brings my total species count to 32") state its value wherever the figure stands (`_tally_changes`).

The attribute recorded is the shared words around the value (a frame's slot for rule 6). A pair of memories gets one proposal
(its best sentence pair); confidence is the share of the shorter sentence's content the two share.
Figures on the LongMemEval dev questions: bench/retrieval/updates.py, docs/MERGE.md ("Updates").
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from datetime import date, datetime
from itertools import combinations
from typing import Any, Iterable

from graphcons.core import eventtime
from graphcons.core import text as toolkit
from graphcons.maintenance import values
from graphcons.maintenance.updates import frames
from graphcons.store.proposals import digest_id

KIND = "update"
MIN_SHARED = 3  # shared content words (not generic speech) of the two sentences
MIN_COVER = 0.3  # ... at least this share of the shorter sentence's content words
# ... or this many when the value stands between the same two words in both, one of them a content word
# ("tried [three] different" / "tried [four] different"): the slot itself then says it is one attribute
MIN_SHARED_ANCHORED = 2
WINDOW = 4  # words either side of the value that name the attribute
NEAR = 6  # words either side of the value where another name makes the two sentences two things
COMMON = 200  # a word held by more memories of a block than this is not indexed (_sharing)


@dataclass(frozen=True)
class Update:
    """`newer` states `new_value` where `older` stated `old_value` for one attribute."""

    proposal_id: str
    namespace: str
    subject: str
    newer: str
    older: str
    attribute: str
    value_kind: str  # numbers | dates | names | contrast
    old_value: str
    new_value: str
    newer_sentence: str
    older_sentence: str
    newer_since: str  # ISO: when the newer value became current (event_start, else created_at)
    older_since: str
    confidence: float
    shared: int
    newer_version: int | None = None
    older_version: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class _Sentence:
    text: str
    words: tuple[str, ...]
    content: frozenset[str]  # content stems, generic speech left out
    events: tuple[tuple[date, date], ...]  # the days the sentence's own time expressions name (core/eventtime)


def since(memory: dict[str, Any]) -> str:
    """When what the memory says became current: its event start, else when it was said (ISO)."""
    at = memory.get("event_start") or memory.get("created_at")
    return at.isoformat() if isinstance(at, (date, datetime)) else str(at)


def _day(iso: str) -> str:
    return iso[:10]


_MARKER_RE = re.compile(r"^\s*(?:#+|[*>-]|\d{1,2}[.)](?!\d))\s*")  # a heading or list marker, not a value
# The speaker's own words: core.text's pronouns, and their contractions as values.words reads them
# without the apostrophe ("I've" -> "ive"; here "were" and "well" count too: a word list has no
# apostrophe to tell them apart, and a false first person only lets a pair be compared).
FIRST_PERSON = toolkit.FIRST_PERSON_WORDS | {"im", "ive", "id", "ill", "weve", "were", "wed", "well"}


# Words by which a speaker says a value is the current one (English, not words of any data set).
CURRENT = frozenset({"now", "currently", "anymore", "longer", "switched", "switch", "moved", "changed", "instead",
                     "lately", "nowadays", "present"})


# Words by which a speaker names a goal rather than a state (English, not words of any data set).
GOALS = frozenset(toolkit.stem(w) for w in ("aim", "aimed", "goal", "target", "need", "want", "hope", "plan",
                                             "planning", "intend", "expect"))
# Words by which a value is what the speaker imagines, not what holds (English), right before it: "taking a
# taxi would cost around $60", "if I get two more"
UNREAL = frozenset({"would", "could", "might", "if"})
# ... or was told, anywhere before it in the sentence (a report governs its whole clause): "my friend told me
# the ferry ticket to the island costs $30", "I heard ..."
HEARSAY = frozenset({"told", "heard", "supposedly", "apparently", "reportedly", "rumoured", "rumored"})
# Words by which a speaker says a value holds as a habit, a standing value ("a class on Fridays", "every
# morning"): as good as "now" for a value that is not a figure.
HABIT = frozenset({"every", "usually", "always", "daily", "weekly", "monthly", "regularly"}
                  | {d + "s" for d in toolkit.WEEKDAYS})
# after a figure: a time of day ("2 AM", "10 pm", "6 o'clock"), which dates an occasion as a day of a month does
_CLOCK = frozenset({"am", "am.", "pm", "pm.", "oclock"})


def _ordered(older: dict[str, Any], newer: dict[str, Any]) -> bool:
    """`newer` is later on another day both by event time and by when it was said: when the two disagree
    ("lost 10 pounds since I started 3 months ago", said after "lost 5 pounds in the past month"), or two
    turns of one chat differ only in the days their texts name, time decides nothing."""
    return _day(since(older)) < _day(since(newer)) and _day(_said(older)) < _day(_said(newer))


def _said(memory: dict[str, Any]) -> str:
    at = memory.get("created_at")
    return at.isoformat() if isinstance(at, (date, datetime)) else str(at)


def _sentences(content: str, said: str) -> list[_Sentence]:
    out = []
    said_at = date.fromisoformat(said[:10])
    for line in (content or "").splitlines():
        for s in toolkit.sentences(_MARKER_RE.sub("", line)):
            ws = values.words(s)
            if not FIRST_PERSON & set(ws):
                continue  # the speaker states nothing of their own here
            stems = frozenset(values.content_stems(ws)) - toolkit.GENERIC_STEMS - FIRST_PERSON
            if len(stems) >= MIN_SHARED:
                events = tuple((e.start, e.end) for e in eventtime.resolve(s, said_at))
                if "since" in ws:  # "lost 10 pounds since I started 3 months ago": a span up to when it is said
                    events = tuple((start, max(end, said_at)) for start, end in events)
                out.append(_Sentence(s, tuple(ws), stems, events))
    return out


def detect(memories: Iterable[dict[str, Any]]) -> list[Update]:
    """Every update among `memories` (dicts with id, content, namespace, subject, created_at and
    optionally event_start), one per (newer, older) pair, in a deterministic order."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for m in memories:
        groups.setdefault((m.get("namespace") or "", m.get("subject") or ""), []).append(m)
    out: list[Update] = []
    for key in sorted(groups):
        out += _detect_group(groups[key])
    return sorted(out, key=lambda u: (u.namespace, u.subject, u.newer_since, u.newer, u.older))


def _detect_group(members: list[dict[str, Any]]) -> list[Update]:
    ordered = sorted(members, key=lambda m: (since(m), m["id"]))
    split = {m["id"]: _sentences(m.get("content") or "", _said(m)) for m in ordered}
    out = []
    for a, b in _sharing(ordered, split):
        older, newer = ordered[a], ordered[b]
        if _day(_said(newer)) < _day(_said(older)):
            older, newer = newer, older  # the clocks disagree: only a tally up to now may order them (below)
        if not _day(_said(older)) < _day(_said(newer)):
            continue  # said on one day: time does not decide (a conflict, if anything)
        timed = _ordered(older, newer)
        best = _best_pair(split[older["id"]], split[newer["id"]], timed)
        if best is not None:
            out.append(_update(older, newer, *best, newer_since=None if timed else _said(newer)))
    return out + _framed(ordered, {(u.older, u.newer) for u in out})


def _framed(ordered: list[dict[str, Any]], found: set[tuple[str, str]]) -> list[Update]:
    """The updates people state in few words (frames.py: the value slot from the parse), among pairs the
    word rules did not find. Only a block where some memory says a value is new or current is parsed, and
    only its first-person sentences of at most FRAME_WORDS words."""
    cued = [i for i, m in enumerate(ordered) if _CUE_RE.search(m.get("content") or "")]
    if not cued:
        return []
    texts = [_first_person_text(m.get("content") or "") for m in ordered]
    parsed = frames.frames(texts)
    out = []
    for b in cued:
        newer = ordered[b]
        for a in range(b):
            older = ordered[a]
            if (older["id"], newer["id"]) in found or not texts[a] or not _ordered(older, newer):
                continue
            hit = frames.updates(parsed[a], parsed[b], texts[a])
            if hit is not None:
                fo, fn = hit
                new_value = f"no longer {fn.value}" if fn.ended else fn.value  # "I no longer live in Paris"
                out.append(Update(proposal_id=proposal_id(newer["id"], older["id"]),
                                  namespace=newer.get("namespace") or "", subject=newer.get("subject") or "",
                                  newer=newer["id"], older=older["id"], attribute=fo.slot, value_kind="frame",
                                  old_value=fo.value, new_value=new_value, newer_sentence=fn.text,
                                  older_sentence=fo.text, newer_since=since(newer), older_since=since(older),
                                  confidence=0.95 if fn.ended or fn.switched_from == fo.value else 0.85, shared=0,
                                  newer_version=newer.get("version"), older_version=older.get("version")))
    return out


FRAME_WORDS = 40  # a longer sentence is a story, not a statement of where one lives or what one uses
# A memory that may say a value is new or current (frames.NOW, frames.MOVES, frames.SWITCHES, frames.NEW_ROLE in
# their spoken forms), count up to now ("so far") or say a habit ("every", "on Fridays"): the only kind that can
# be the newer of a framed update
_CUE_RE = re.compile(r"\b(?:now|currently|anymore|nowadays|presently|so far|to date|in total|mov(?:e|ed|ing)|"
                     r"hired|promoted|joined|no longer|used to|every|(?:mon|tues|wednes|thurs|fri|satur|sun)days|"
                     r"relocat(?:e|ed|ing)|settled|switch(?:ed|ing)?|chang(?:e|ed|ing)|migrat(?:e|ed|ing)|"
                     r"convert(?:ed|ing)?|swapp?(?:ed|ing)?|upgrad(?:e|ed|ing))\b", re.IGNORECASE)


# the spoken forms of frames.STATES, ROLE_VERBS, SWITCHES and HAVING or a perfect (with a count): a sentence
# without one has no frame
_STATE_RE = re.compile(r"\b(?:liv(?:e|es|ed|ing)|resid\w*|based|settl\w*|mov(?:e|es|ed|ing)|relocat\w*|work\w*|"
                       r"hired|promoted|employed|joined|serv(?:e|es|ed|ing)\s+as|"  # a role: "promote" alone sells
                       r"(?:my|our)\s+(?:\w+\s+){1,4}(?:is|are|'s)|"  # an attribute of the speaker's
                       r"us(?:e|es|ed|ing)|dr(?:ive|ives|ove|iving|iven)|rid(?:e|es|ing)|rode|teach\w*|taught|"
                       r"stud(?:y|ies|ied|ying)|own\w*|prefer\w*|run(?:s|ning)?|ran|manag\w*|lead\w*|led|rent\w*|"
                       r"switch\w*|chang\w*|migrat\w*|convert\w*|swapp?\w*|upgrad\w*|"
                       r"(?:on|every)\s+(?:mon|tues|wednes|thurs|fri|satur|sun)days?|"  # a day something is on (a schedule)
                       r"(?:ha(?:ve|s|d|ving)|keep\w*|kept)\b.*\b(?:\d+|one|two|three|four|five|six|seven|eight|"
                       r"nine|ten|eleven|twelve)|"
                       # a perfect with its count right after the verb ("I've run two", "we've tried 3 new"): parse
                       # cost grows with the text read, so not every "I've ... one"
                       r"['’]ve\s+(?:\w+\s+){1,2}(?:\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve))\b",
                       re.IGNORECASE)


def _first_person_text(content: str) -> str:
    """The sentences of a memory that speak in the first person, short ones only, joined."""
    keep = [s for line in content.splitlines() for s in toolkit.sentences(_MARKER_RE.sub("", line))
            if len(s.split()) <= FRAME_WORDS and FIRST_PERSON & set(values.words(s)) and _STATE_RE.search(s)]
    return " ".join(keep)


def _sharing(ordered: list[dict[str, Any]], split: dict[str, list[_Sentence]]) -> list[tuple[int, int]]:
    """The pairs (older index, newer index) whose sentences share at least MIN_SHARED content words:
    the only pairs `_best_pair` can accept, found through an index of words instead of every pair
    (a block of 10k memories is 50M pairs). A word in more than COMMON memories of the block
    names no particular attribute there and is not indexed, so a very large block stays bounded;
    in a block of at most COMMON memories the pairs are exactly those every-pair comparison finds."""
    holders: dict[str, list[int]] = {}
    for i, m in enumerate(ordered):
        for stem in sorted(set().union(*(s.content for s in split[m["id"]]))):
            holders.setdefault(stem, []).append(i)
    shared: dict[tuple[int, int], int] = {}
    for held in holders.values():
        if len(held) <= COMMON:
            for pair in combinations(held, 2):
                shared[pair] = shared.get(pair, 0) + 1
    return sorted(pair for pair, n in shared.items() if n >= min(MIN_SHARED, MIN_SHARED_ANCHORED))


def _best_pair(olds: list[_Sentence], news: list[_Sentence], timed: bool = True) -> tuple | None:
    """The sentence pair and change by which `news` updates `olds`. Not `timed` (said later, but its event time
    is earlier): only a figure the newer sentence counts up to when it is said ("I've lost 10 pounds since I
    started 3 months ago": the start of the count is not when the count holds)."""
    best = None
    for so in olds:
        for sn in news:
            shared = so.content & sn.content
            if len(shared) < min(MIN_SHARED, MIN_SHARED_ANCHORED):
                continue
            cover = len(shared) / min(len(so.content), len(sn.content))
            if cover < MIN_COVER or (best is not None and (cover, len(shared)) <= best[0]):
                continue
            changes = [c for c in values.changed_values(so.text, sn.text)
                       if (timed or _up_to_now(sn, c)) and (len(shared) >= MIN_SHARED or _anchored(c, so, sn))
                       and _one_thing(so, sn, c)] or [c for c in _tally_changes(so, sn, shared) if _one_thing(so, sn, c)]
            if changes and _two_events(so, sn):
                continue
            if changes:
                best = ((cover, len(shared)), so, sn, min(changes, key=_anchor_rank))
    return best


def _one_thing(so: _Sentence, sn: _Sentence, change: values.ValueChange) -> bool:
    """The two sentences speak of one thing whose value changed, not of two things: each names something the
    other does not, one of them next to its value (within NEAR words: "spent 70 hours playing Assassin's
    Creed" / "spent 30 hours playing The Last of Us" are two games). A value that is not a figure (a name, a
    day, a colour) needs the newer sentence to say it is current (CURRENT): one trip to Walmart and one to
    Target are two trips, "now at Target" is a change."""
    only_old, only_new = values.one_sided_names(so.text, sn.text)
    only_old, only_new = only_old - set(change.value_a.split()), only_new - set(change.value_b.split())
    if (only_new and _near(so.words, only_old, change.value_a)) or (only_old and _near(sn.words, only_new, change.value_b)):
        return False
    if _goal(so.words, change.value_a) != _goal(sn.words, change.value_b):
        return False  # a goal and a state ("aimed to raise $200" / "raised $250"): two attributes
    if any(_said_before(ws, value, UNREAL) or _said_before(ws, value, HEARSAY, len(ws))
           for ws, value in ((so.words, change.value_a), (sn.words, change.value_b))):
        return False  # a value imagined or told on either side is no state of the speaker's: nothing to replace
    figure = change.kind == "numbers" and not (_clock(so.words, change.value_a) or _clock(sn.words, change.value_b))
    if not (figure or CURRENT & set(sn.words) or HABIT & set(sn.words)):
        return False
    # the parse last (the costly check, on the few pairs left): a newer value told of one past occasion
    # ("I had an appointment at 10 AM last Thursday", "I caught 7 fish") is that occasion's, not a new state
    return not frames.episode(sn.text, change.value_b)


def _goal(ws: tuple[str, ...], value: str) -> bool:
    """The value is what the speaker aims at, not what holds: a goal word in the NEAR words before it."""
    first = value.split()[0]
    at = [i for i, w in enumerate(ws) if w == first]
    return any(toolkit.stem(w) in GOALS for i in at for w in ws[max(0, i - NEAR):i])


def _anchored(change: values.ValueChange, so: _Sentence, sn: _Sentence) -> bool:
    """The value stands between the same two words in both sentences, one of them a content word, and neither
    sentence dates it: "read [two] books this month" / "read [five] books this year" count two windows."""
    return (change.anchor[0] == "both" and any(w not in values.STOPWORDS for w in change.anchor[1:])
            and not so.events and not sn.events)


def _up_to_now(sn: _Sentence, change: values.ValueChange) -> bool:
    """A figure the sentence counts up to when it is said: since a start, so far, in total."""
    ws = sn.words
    return change.kind == "numbers" and ("since" in ws or "total" in ws or any(
        ws[i:i + 2] == ("so", "far") for i in range(len(ws) - 1)))


# Words between a figure and what it counts, or after "total", that are not what is counted ("27 different
# species", "a total of 37 coins", "my total species count")
_NOT_COUNTED = frozenset({"different", "new", "more", "other", "total", "separate", "unique", "distinct", "additional",
                          "extra", "whole", "of", "my", "our", "the", "count", "number", "tally"})


def _tallies(ws: tuple[str, ...]) -> dict[str, str]:
    """What a sentence counts up to now (so far, to date, in total, since) -> the count, by the counted noun's
    stem: "I've seen 27 different species so far", "brings my total species count to 32", "a total of 37
    coins". A count not said to run up to now counts one occasion, not a tally."""
    if not _counts_up_to_now(ws):
        return {}
    out: dict[str, str] = {}
    for i, w in enumerate(ws):
        value = toolkit.NUMBER_WORDS.get(w, w)
        if value.isdigit() and w != "one":
            noun = next((x for x in ws[i + 1:i + 4] if x not in _NOT_COUNTED), "")
            if noun and not toolkit.NUMBER_WORDS.get(noun, noun).isdigit():
                out.setdefault(toolkit.stem(noun), value)
        elif w == "total":  # "my total species count to 32": the noun after "total", the figure after it
            after = [x for x in ws[i + 1:i + 8] if x not in _NOT_COUNTED]
            figure = next((x for x in after if toolkit.NUMBER_WORDS.get(x, x).isdigit()), None)
            if after and figure is not None and after[0] != figure:
                out.setdefault(toolkit.stem(after[0]), toolkit.NUMBER_WORDS.get(figure, figure))
    return out


def _counts_up_to_now(ws: tuple[str, ...]) -> bool:
    pairs = {" ".join(ws[i:i + 2]) for i in range(len(ws) - 1)}
    return "since" in ws or "total" in ws or bool(pairs & {"so far", "to date"})


def _tally_changes(so: _Sentence, sn: _Sentence, shared: frozenset[str]) -> list[values.ValueChange]:
    """Both sentences count one thing up to now and the counts differ ("27 different species so far" / "brings my
    total species count to 32"): the slot is the counted noun, which the two share, whatever words stand
    around the figure."""
    if so.events and sn.events and so.events != sn.events:
        return []  # "so far this month" / "so far this year": two windows, two tallies
    old, new = _tallies(so.words), _tallies(sn.words)
    return [values.ValueChange("numbers", old[n], new[n], ("tally", n))
            for n in sorted(old.keys() & new.keys() & shared) if old[n] != new[n]]


def _said_before(ws: tuple[str, ...], value: str, klass: frozenset[str], near: int = NEAR) -> bool:
    """A word of `klass` among the `near` words before the value (as written, not stemmed)."""
    first = value.split()[0]
    return any(w in klass for i, x in enumerate(ws) if x == first for w in ws[max(0, i - near):i])


def _clock(ws: tuple[str, ...], value: str) -> bool:
    """The figure is a time of day: "10:30", or a figure right before am / pm / o'clock."""
    first = value.split()[0]
    return ":" in first or any(x == first and i + 1 < len(ws) and ws[i + 1] in _CLOCK for i, x in enumerate(ws))


def _two_events(so: _Sentence, sn: _Sentence) -> bool:
    """Each sentence dates what it tells, on days that do not meet ("2 AM last Wednesday" / "10 AM last
    Thursday"): two events, each with its own figure, not one value that changed."""
    a, b = so.events, sn.events
    return bool(a) and bool(b) and all(x[1] < y[0] or y[1] < x[0] for x in a for y in b)


def _near(ws: tuple[str, ...], names: set[str], value: str) -> bool:
    first = value.split()[0]
    at = [i for i, w in enumerate(ws) if w == first] or [len(ws) // 2]
    return any(w in names for i in at for w in ws[max(0, i - NEAR):i + NEAR + 1])


def proposal_id(a: str, b: str) -> str:
    """One id per pair of memories, either way round: a rejected pair is never proposed again."""
    return digest_id("u-", KIND, *sorted((a, b)))


def _anchor_rank(change: values.ValueChange) -> tuple:
    """The value whose slot says most: both neighbours shared, else the word after it (what a figure counts),
    else the word before."""
    return ({"both": 0, "after": 1, "before": 2}.get(change.anchor[0], 3), change.value_a, change.value_b)


def _update(older: dict[str, Any], newer: dict[str, Any], score: tuple[float, int], so: _Sentence,
            sn: _Sentence, change: values.ValueChange, newer_since: str | None = None) -> Update:
    attribute = _attribute(sn, so, change.value_b)
    return Update(proposal_id=proposal_id(newer["id"], older["id"]),
                  namespace=newer.get("namespace") or "", subject=newer.get("subject") or "",
                  newer=newer["id"], older=older["id"], attribute=attribute, value_kind=change.kind,
                  old_value=change.value_a, new_value=change.value_b, newer_sentence=sn.text, older_sentence=so.text,
                  newer_since=newer_since or since(newer), older_since=since(older), confidence=round(score[0], 4),
                  shared=score[1],
                  newer_version=newer.get("version"), older_version=older.get("version"))


def _attribute(sn: _Sentence, so: _Sentence, value: str) -> str:
    """The newer sentence's words around its value that the older sentence has too (by stem)."""
    ws, first = list(sn.words), value.split()[0]
    at = ws.index(first) if first in ws else len(ws) // 2
    olds = {toolkit.stem(w) for w in so.words}
    near = [w for w in ws[max(0, at - WINDOW):at + WINDOW + 1]
            if w not in values.STOPWORDS and w not in FIRST_PERSON and toolkit.stem(w) in olds and w != first]
    return " ".join(near[:6]) or value
