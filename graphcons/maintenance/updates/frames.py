"""Updates as people say them (issue 62 item 1): the value slot read from the parse, not from shared words.

detect.py pairs sentences that share three content words; people state a change in a few words that
share none with what they said before ("I live in Paris" ... "I moved to Berlin"). A frame is one
first-person clause's slot and value, read from the dependency parse (core/parser.py): the verb's
lemma with the dependency that holds the value.

    "I live in Paris"               residence = paris
    "I moved to Berlin"             residence = berlin     (a change verb: it says the value is new)
    "I work as a nurse"             role = nurse
    "I use Vim for everything"      use = vim
    "I have two cats"               have cat = 2           (a count)
    "I've run two marathons"        run marathon = 2       (a count up to now: the present perfect)
    "I was promoted to manager"     role = manager         (work as, hired as, promoted to: one slot)
    "I switched from Vim to Emacs"  a switch from vim to emacs
    "My coffee order is a latte"    my coffee order = latte  (an attribute of the speaker's)
    "I changed my order to a mocha" my order = mocha       ("changed my X to": the value is new)
    "I don't live in Paris anymore" residence = paris, ended (no longer, not ... anymore, used to)
    "I have a pottery class on Fridays"  on days: have pottery class = friday  (a habit: current)

A later memory of the same namespace and subject updates an earlier one (detect's order: later on
another day, by event time and by when it was said) when
- a frame of each has the same slot and another value, and the later says its value is the current
  one (a change verb, or a word of detect.CURRENT: "now", "currently", "anymore", ...), or the value
  is a count ("two cats" -> "three cats now"); or
- the later switches from the earlier's value ("switched from Vim to Emacs" after "I use Vim for
  everything"): the slot is the earlier's; or
- the later says the earlier's very value holds no more ("I no longer live in Paris", "I don't use Vim
  anymore", "I used to drive a Honda" after "I drive a Honda").
Any other negated clause ("I don't use Vim") states no value; an older value already said to be past
replaces nothing. The verb classes are word classes of English, not sentences of a
data set. Without the parser (the `cards` extra) the update pass keeps detect's word rules alone.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import Any, Iterable

from graphcons.core import parser
from graphcons.core.text import NUMBER_WORDS, WEEKDAYS

FIRST_PERSON = frozenset({"i", "we"})
# the verb's lemma and the preposition that holds a place one lives in: one slot, however it is said
RESIDENCE = {("live", "in"), ("reside", "in"), ("base", "in"), ("move", "to"), ("move", "into"), ("relocate", "to"),
             ("settle", "in")}
MOVES = frozenset({"move", "relocate", "settle"})  # verbs that say the place is new
# the verb's lemma and the preposition that hold one's job or role: one slot, "role", however it is said
ROLE = {("work", "as"), ("serve", "as"), ("employ", "as"), ("hire", "as"), ("join", "as"), ("promote", "to")}
# verbs that name a role only with that preposition ("hired a plumber" is no role), the first three a new one
ROLE_VERBS = frozenset({"hire", "join", "promote", "employ", "serve"})
NEW_ROLE = frozenset({"hire", "join", "promote"})
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
# adverbs by which a verb in the past tells a result that holds now ("I just finished my 5th project")
RESULT = frozenset({"just", "now", "already", "finally", "currently"})

@dataclass(frozen=True)
class Frame:
    slot: str  # "residence", "work as", "use", "have cat", ...
    value: str  # lower-cased: "paris", "nurse", "2"
    current: bool  # the clause says the value is new or current
    count: bool  # the value is a count of the slot's noun
    switched_from: str | None = None  # a switch: the value it leaves
    text: str = ""  # the clause's sentence, for the proposal
    ended: bool = False  # the clause says the value holds no more ("no longer", "anymore", "used to")


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
            if fo.ended:
                continue  # an older value already said to be past: nothing left to replace
            if fn.ended:  # the newer says the older's very value holds no more, by the same verb
                if fo.slot.split()[0] == fn.slot.split()[0] and fo.value == fn.value:
                    return fo, fn
                continue
            if fn.switched_from is not None and fo.value == fn.switched_from and fo.value != fn.value:
                return fo, fn
            if fo.slot == fn.slot and fo.value != fn.value and (fn.current or (fn.count and fo.count)):
                return fo, fn
        if fn.switched_from and not fn.ended and fn.switched_from != fn.value and f" {fn.switched_from} " in said:
            return Frame(fn.slot, fn.switched_from, False, False, None, older_text), fn
    return None


def _clause_frames(sent: Any) -> list[Frame]:
    out: list[Frame] = []
    if any(t.lower_ in ADDITIVE for t in sent):
        return out
    # a count in a dated clause counts an event ("three meetings tomorrow"), not what one has
    dated = any(t.ent_type_ in ("DATE", "TIME") and t.lower_ not in NOW for t in sent)
    for verb in sent:
        if verb.lemma_ == "be" and not _negated(verb):  # "My username is bob42": an attribute of the speaker's
            out += _owned(verb, sent.text)
        if verb.pos_ not in ("VERB", "AUX") or not _first_person(verb):
            continue
        if _ended(verb):  # "I no longer live in Paris": the value it names holds no more
            out += [replace(f, current=True, count=False, switched_from=None, ended=True)
                    for f in _verb_frames(verb, sent, dated) if not f.count and f.slot != "switch"]
        elif not (_negated(verb) or _past_habit(verb)):
            out += _verb_frames(verb, sent, dated) + _schedule(verb, sent.text)
    return out


def _schedule(verb: Any, text: str) -> list[Frame]:
    """The weekdays something of the speaker's is on ("I have a pottery class on Thursday", "I go to the gym
    on Tuesdays and Saturdays"): slot "on days: <what>" (the object, else the place gone to), value the
    days; current when said as a habit (a plural day, "every"), the way a standing schedule is said."""
    what = next((c for c in verb.children if c.dep_ == "dobj" and c.pos_ == "NOUN"), None)
    if what is None:
        what = next((o for p in verb.children if p.dep_ == "prep" and p.lemma_.lower() in ("to", "at")
                     for o in p.children if o.dep_ == "pobj" and o.pos_ == "NOUN"), None)
    if what is None or what.lemma_.lower() in VAGUE:
        return []
    heads = [o for p in [*verb.children, *what.children] if p.dep_ == "prep" and p.lower_ == "on"
             for o in p.children if o.dep_ == "pobj"] + [o for o in verb.children if o.dep_ == "npadvmod"]
    days = [d for o in heads for d in [o, *o.conjuncts] if _weekday(d.lower_)]  # "every Monday and Friday" too
    if not days:
        return []
    habit = any(d.lower_.endswith("s") for d in days) or any(t.lower_ == "every" for t in verb.subtree)
    if not habit and (verb.tag_ == "VBD" or any(c.tag_ == "VBD" for c in verb.children if c.dep_ == "aux")):
        return []  # "I had a meeting on Monday": one past occasion, no schedule
    value = " ".join(sorted({_weekday(d.lower_) for d in days}))
    # what it is, modifiers and all: a pottery class and a yoga class are two schedules
    kind = " ".join(t.lemma_.lower() for t in what.subtree
                    if t.i <= what.i and (t.i == what.i or t.pos_ in ("NOUN", "PROPN", "VERB", "ADJ")))
    return [Frame(f"on days: {verb.lemma_.lower()} {kind}", value, habit, False, None, text)]


def _weekday(word: str) -> str:
    """The weekday a word names ("fridays" -> "friday"), else ""."""
    day = word.removesuffix("s") if word.endswith("days") else word
    return day if day in WEEKDAYS else ""


def _verb_frames(verb: Any, sent: Any, dated: bool) -> list[Frame]:
    """The frames of one first-person verb of `sent`."""
    out: list[Frame] = []
    lemma = verb.lemma_.lower()
    if lemma in ROLE_VERBS:  # "I was promoted to manager", "hired as a nurse": a role, new or held
        now = lemma in NEW_ROLE or any(t.lower_ in NOW for t in verb.children)
        for c in verb.children:
            value = _object(c) if c.dep_ == "prep" and (lemma, c.lemma_.lower()) in ROLE else None
            if value and value not in VAGUE:
                out.append(Frame("role", value, now, False, None, sent.text))
        return out
    if lemma not in STATES and lemma not in SWITCHES and lemma not in HAVING:
        return _tally(verb, lemma, sent.text, dated) if _perfect(verb) else []  # "I've run two marathons"
    now = lemma in MOVES or lemma in SWITCHES or any(t.lower_ in NOW for t in verb.children)
    now = now or any(t.lower_ in NOW for t in sent if t.head == verb.head and t.dep_ == "advmod")
    preps = {c.lemma_.lower(): c for c in verb.children if c.dep_ == "prep" and c.lemma_.lower() in VALUE_PREPS}
    if lemma in SWITCHES and "to" in preps:
        new, old = _object(preps["to"]), _object(preps["from"]) if "from" in preps else None
        dobj = next((c for c in verb.children if c.dep_ == "dobj"), None)
        if new and old is None and dobj is not None and _mine(dobj):
            # "I changed my username to alice7": the new value of that attribute of the speaker's
            return [Frame(_attribute(dobj), new, True, False, None, sent.text)]
        if new and (old or dobj is not None):
            out.append(Frame("switch", new, True, False, old or _phrase(dobj), sent.text))
        return out
    dobj = next((c for c in verb.children if c.dep_ == "dobj"), None)
    for prep, p in preps.items():
        value = _object(p)
        if not value or prep == "from" or lemma in HAVING or (dobj is not None and (lemma, prep) not in RESIDENCE):
            continue  # with an object, the object is the value ("use Vim for everything")
        slot = "residence" if (lemma, prep) in RESIDENCE else "role" if (lemma, prep) in ROLE else f"{lemma} {prep}"
        if value not in VAGUE:
            old = _object(preps["from"]) if lemma in MOVES and "from" in preps else None
            out.append(Frame(slot, value, now, False, old, sent.text))
    if dobj is not None and dobj.lemma_.lower() not in VAGUE:
        count = next((c for c in dobj.children if c.dep_ == "nummod"), None)
        if count is not None and not dated and lemma in HAVING:
            out.append(Frame(f"{lemma} {dobj.lemma_.lower()}", NUMBER_WORDS.get(count.lower_, count.lower_),
                             now, True, None, sent.text))
        elif count is not None and _perfect(verb):  # "I've run two marathons": a tally, not a state
            out += _tally(verb, lemma, sent.text, dated)
        elif lemma in STATES and dobj.pos_ in ("PROPN", "NOUN"):
            # what for is part of the slot: "use Docker for deployment" and "use Vim for everything"
            purpose = _object(preps["for"]) if "for" in preps else None
            out.append(Frame(f"{lemma} for {purpose}" if purpose else lemma, _phrase(dobj), now, False, None,
                             sent.text))
    return out


def _mine(noun: Any) -> bool:
    return noun.pos_ == "NOUN" and any(c.dep_ == "poss" and c.lower_ in ("my", "our") for c in noun.children)


def _attribute(noun: Any) -> str:
    """The name of an attribute of the speaker's: "my usual coffee order" -> "my usual coffee order"."""
    parts = sorted([c for c in noun.children if c.dep_ in ("compound", "amod") and c.i < noun.i] + [noun],
                   key=lambda t: t.i)
    return "my " + " ".join(t.lemma_.lower() for t in parts)


def _owned(verb: Any, text: str) -> list[Frame]:
    """"My <attribute> is <value>" ("my username is bob42", "my favorite color is now green"), else nothing."""
    subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    value = next((c for c in verb.children if c.dep_ in ("attr", "acomp")), None)
    if subj is None or value is None or not _mine(subj) or value.lemma_.lower() in VAGUE:
        return []
    now = any(c.lower_ in NOW for c in verb.children)
    said = value.lower_ if value.pos_ in ("NUM", "ADJ") else _phrase(value)
    return [Frame(_attribute(subj), said, now, False, None, text)]


def _perfect(verb: Any) -> bool:
    """The present perfect ("I've run", "we have read"): what it counts holds up to now."""
    return verb.tag_ == "VBN" and any(c.dep_ == "aux" and c.lemma_.lower() == "have" and c.tag_ in ("VBP", "VBZ")
                                      for c in verb.children)


def _count(noun: Any) -> Any:
    """The number counting `noun` ("three half marathons": three; the parse may hang it under "half")."""
    return next((t for t in noun.subtree if t.dep_ == "nummod" and t.like_num and t.i < noun.i), None)


def _tally(verb: Any, lemma: str, text: str, dated: bool) -> list[Frame]:
    """The count of a present perfect's object ("I've run two marathons": run marathon = 2), else nothing.
    The object's modifiers are part of the slot: two marathons and three half marathons are two tallies."""
    # the object, or a counted noun the small model reads as an adverb ("climbed two volcanoes": npadvmod)
    dobj = next((c for c in verb.children if c.dep_ == "dobj" or (c.dep_ == "npadvmod" and _count(c) is not None)),
                None)
    if dobj is None or dated or dobj.lemma_.lower() in VAGUE:
        return []
    count = _count(dobj)
    if count is None:
        return []
    noun = sorted([c for c in dobj.children if c.dep_ in ("compound", "amod") or (c.dep_ == "nummod" and c != count)]
                  + [dobj], key=lambda t: t.i)
    # a name the count is of is part of the slot too: "three courses on Coursera" / "two courses on edX"
    named = sorted(v for p in [*verb.children, *dobj.children] if p.dep_ == "prep"
                   for o in p.children if o.dep_ == "pobj" and o.pos_ == "PROPN" for v in [_phrase(o)])
    slot = " ".join([lemma, *(t.lemma_.lower() for t in noun), *named])
    return [Frame(slot, NUMBER_WORDS.get(count.lower_, count.lower_), False, True, None, text)]


@functools.lru_cache(maxsize=4096)  # a sentence is asked about once per candidate pair it is in
def _parse(text: str) -> Any:
    return parser.nlp()(text)


def episode(sentence: str, value: str) -> bool:
    """The value is told of one past occasion: the first verb up its heads is in the simple past, the past
    progressive or the past perfect ("I had an appointment at 10 AM", "I caught 7 fish", "I was running 5
    miles"), not a present state, a tally up to now ("I've tried four") or a result the speaker has now
    ("I just finished my 5th project"). False without the parser or when the parse does not hold the value."""
    if not parser.available():
        return False
    first = value.split()[0]
    tok = next((t for t in _parse(" ".join(sentence.split())) if _spells(t.lower_, first)), None)
    for _ in range(8):
        if tok is None or tok.pos_ in ("VERB", "AUX"):
            break
        tok = None if tok.head.i == tok.i else tok.head
    if tok is None or tok.pos_ not in ("VERB", "AUX"):
        return False
    if tok.lemma_.lower() in MOVES | SWITCHES | NEW_ROLE:
        return False  # a change told in the past ("I switched to Emacs") names the state it began
    kids = list(tok.children)
    aux = [c for c in kids if c.dep_ in ("aux", "auxpass")]
    if any(c.dep_ == "advmod" and c.lower_ in RESULT for c in kids) or any(c.tag_ == "MD" for c in aux):
        return False
    if any(c.lemma_.lower() == "have" and c.tag_ in ("VBP", "VBZ") for c in aux):
        return False  # the present perfect: up to now
    return tok.tag_ == "VBD" or any(c.tag_ == "VBD" for c in aux)


def _spells(token: str, value: str) -> bool:
    """The parse's token writes the value as values.words reads it ("1,250", "5th" for 5, "$" apart)."""
    token = token.replace("’", "'").removesuffix("'s")
    return token == value or (token[:1].isdigit() and token.rstrip("stndrh") == value)


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


def _ended(verb: Any) -> bool:
    """The clause says its value holds no more: "I no longer live in Paris", "I don't use Vim anymore", "I used
    to drive a Honda" (the verb under "used to", not "used" itself)."""
    said = {c.lower_ for c in verb.children if c.dep_ in ("advmod", "neg")}
    return ("longer" in said or ("anymore" in said and bool(said & {"not", "n't", "never"}))
            or (verb.dep_ == "xcomp" and _past_habit(verb)))


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
