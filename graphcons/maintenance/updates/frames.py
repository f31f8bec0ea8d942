"""Updates as people say them (issue 62 item 1): the value slot read from the parse, not from shared words.

detect.py pairs sentences that share three content words; people state a change in a few words that
share none with what they said before ("I live in Paris" ... "I moved to Berlin"). A frame is one
first-person clause's slot and value, read from the dependency parse (core/parser.py): the verb's
lemma with the dependency that holds the value.

    "I live in Paris"               residence = paris
    "I moved to Berlin"             residence = berlin     (a change verb: it says the value is new)
    "I work as a nurse"             work as = nurse
    "I use Vim for everything"      use = vim
    "I have two cats"               have cat = 2           (a count)
    "I switched from Vim to Emacs"  a switch from vim to emacs

A later memory of the same namespace and subject updates an earlier one (detect's order: later on
another day, by event time and by when it was said) when
- a frame of each has the same slot and another value, and the later says its value is the current
  one (a change verb, or a word of detect.CURRENT: "now", "currently", "anymore", ...), or the value
  is a count ("two cats" -> "three cats now"); or
- the later switches from the earlier's value ("switched from Vim to Emacs" after "I use Vim for
  everything"): the slot is the earlier's.
A negated clause ("I don't use Vim", "I no longer live in Paris") and a past habit ("I used to drive
a Honda") state no current value. The verb classes are word classes of English, not sentences of a
data set. Without the parser (the `cards` extra) the update pass keeps detect's word rules alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from graphcons.core import parser
from graphcons.core.text import NUMBER_WORDS

FIRST_PERSON = frozenset({"i", "we"})
# the verb's lemma and the preposition that holds a place one lives in: one slot, however it is said
RESIDENCE = {("live", "in"), ("reside", "in"), ("base", "in"), ("move", "to"), ("move", "into"), ("relocate", "to"),
             ("settle", "in")}
MOVES = frozenset({"move", "relocate", "settle"})  # verbs that say the place is new
SWITCHES = frozenset({"switch", "change", "migrate", "convert", "transition", "swap", "upgrade"})
VALUE_PREPS = frozenset({"in", "into", "to", "as", "at", "for", "from", "with"})
# Words by which a speaker says the value is the current one (detect.CURRENT is the same class)
# ("lately", "recently" date an event: "I recently met Tom" replaces nobody)
NOW = frozenset({"now", "currently", "anymore", "nowadays", "presently"})
# Verbs of a state that holds until it changes (where one lives, works, studies; what one uses, drives,
# owns, prefers): only these name a slot. Verbs of events (meet, buy, attend, read, play, spend) add to
# what happened and replace nothing. A count needs a verb of having.
STATES = frozenset({"live", "reside", "base", "settle", "move", "relocate", "work", "use", "drive", "ride", "teach",
                    "study", "own", "prefer", "run", "manage", "lead", "rent"})
HAVING = frozenset({"have", "own", "keep"})
# values that name no thing of their own ("a lot", "my time", "different types")
VAGUE = frozenset({"lot", "time", "type", "kind", "sort", "bit", "total", "thing", "way", "number", "couple",
                   "part", "one", "some", "stuff", "everything", "something", "anything"})
# a clause that adds a value to what holds ("I now play the piano too") replaces nothing
ADDITIVE = frozenset({"too", "also", "another", "additionally", "again", "more", "both"})

@dataclass(frozen=True)
class Frame:
    slot: str  # "residence", "work as", "use", "have cat", ...
    value: str  # lower-cased: "paris", "nurse", "2"
    current: bool  # the clause says the value is new or current
    count: bool  # the value is a count of the slot's noun
    switched_from: str | None = None  # a switch: the value it leaves
    text: str = ""  # the clause's sentence, for the proposal


def frames(texts: Iterable[str]) -> list[list[Frame]]:
    """The frames of each text, in order ([] for each when the parser is missing)."""
    texts = list(texts)
    if not parser.available():
        return [[] for _ in texts]
    return [[f for sent in doc.sents for f in _clause_frames(sent)]
            for doc in parser.nlp().pipe([" ".join(t.split()) for t in texts], batch_size=64)]


def updates(older: list[Frame], newer: list[Frame], older_text: str = "") -> tuple[Frame, Frame] | None:
    """The (older, newer) frames by which the newer memory updates the older one, or None. A switch
    ("from Spotify to Apple Music") also updates an older first-person text that names what it leaves
    where the parse found no frame for it ("My team uses Jira": the slot is then the switch's)."""
    said = f" {' '.join(older_text.lower().split())} "
    for fn in newer:
        for fo in older:
            if fn.switched_from is not None and fo.value == fn.switched_from and fo.value != fn.value:
                return fo, fn
            if fo.slot == fn.slot and fo.value != fn.value and (fn.current or (fn.count and fo.count)):
                return fo, fn
        if fn.switched_from and fn.switched_from != fn.value and f" {fn.switched_from} " in said:
            return Frame(fn.slot, fn.switched_from, False, False, None, older_text), fn
    return None


def _clause_frames(sent: Any) -> list[Frame]:
    out: list[Frame] = []
    if any(t.lower_ in ADDITIVE for t in sent):
        return out
    # a count in a dated clause counts an event ("three meetings tomorrow"), not what one has
    dated = any(t.ent_type_ in ("DATE", "TIME") and t.lower_ not in NOW for t in sent)
    for verb in sent:
        if verb.pos_ not in ("VERB", "AUX") or not _first_person(verb) or _negated(verb) or _past_habit(verb):
            continue
        lemma = verb.lemma_.lower()
        if lemma not in STATES and lemma not in SWITCHES and lemma not in HAVING:
            continue
        now = lemma in MOVES or lemma in SWITCHES or any(t.lower_ in NOW for t in verb.children)
        now = now or any(t.lower_ in NOW for t in sent if t.head == verb.head and t.dep_ == "advmod")
        preps = {c.lemma_.lower(): c for c in verb.children if c.dep_ == "prep" and c.lemma_.lower() in VALUE_PREPS}
        if lemma in SWITCHES and "to" in preps:
            new, old = _object(preps["to"]), _object(preps["from"]) if "from" in preps else None
            dobj = next((c for c in verb.children if c.dep_ == "dobj"), None)
            if new and (old or dobj is not None):
                out.append(Frame("switch", new, True, False, old or _phrase(dobj), sent.text))
            continue
        dobj = next((c for c in verb.children if c.dep_ == "dobj"), None)
        for prep, p in preps.items():
            value = _object(p)
            if not value or prep == "from" or lemma in HAVING or (dobj is not None and (lemma, prep) not in RESIDENCE):
                continue  # with an object, the object is the value ("use Vim for everything")
            slot = "residence" if (lemma, prep) in RESIDENCE else f"{lemma} {prep}"
            if value not in VAGUE:
                old = _object(preps["from"]) if lemma in MOVES and "from" in preps else None
                out.append(Frame(slot, value, now, False, old, sent.text))
        if dobj is not None and dobj.lemma_.lower() not in VAGUE:
            count = next((c for c in dobj.children if c.dep_ == "nummod"), None)
            if count is not None and not dated and lemma in HAVING:
                out.append(Frame(f"{lemma} {dobj.lemma_.lower()}", NUMBER_WORDS.get(count.lower_, count.lower_),
                                 now, True, None, sent.text))
            elif lemma in STATES and dobj.pos_ in ("PROPN", "NOUN"):
                # what for is part of the slot: "use Docker for deployment" and "use Vim for everything"
                purpose = _object(preps["for"]) if "for" in preps else None
                out.append(Frame(f"{lemma} for {purpose}" if purpose else lemma, _phrase(dobj), now, False, None,
                                 sent.text))
    return out


def _first_person(verb: Any) -> bool:
    """The clause's subject is the speaker (I, we), its own or, for a conjoined verb, its head's."""
    for v in (verb, verb.head if verb.dep_ in ("conj", "xcomp") else None):
        if v is None:
            continue
        subj = [c for c in v.children if c.dep_ in ("nsubj", "nsubjpass")]
        if subj:
            return subj[0].lower_ in FIRST_PERSON
    return False


def _negated(verb: Any) -> bool:
    return any(c.dep_ == "neg" or (c.dep_ == "advmod" and c.lower_ in ("longer", "never")) for c in verb.children)


def _past_habit(verb: Any) -> bool:
    """'I used to drive a Honda': a value that held, not one that holds."""
    return (verb.dep_ == "xcomp" and verb.head.lemma_ == "use" and verb.head.tag_ == "VBD") or \
        (verb.lemma_ == "use" and any(c.dep_ == "xcomp" for c in verb.children) and verb.tag_ == "VBD")


def _object(prep: Any) -> str | None:
    pobj = next((c for c in prep.children if c.dep_ == "pobj"), None)
    return _phrase(pobj) if pobj is not None else None


def _phrase(token: Any) -> str:
    """The value's words: the head noun with its compounds and proper-noun parts ("new york", "vim")."""
    parts = [c for c in token.children if c.dep_ in ("compound", "amod") and c.i < token.i and
             (c.dep_ == "compound" or c.pos_ == "PROPN")] + [token]
    return " ".join(t.lemma_.lower() if t.pos_ == "NOUN" else t.lower_ for t in sorted(parts, key=lambda t: t.i))
