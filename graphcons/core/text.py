"""The one text toolkit (issue 46): tokens, the stemmer, the stop-word and generic-word lists, the
sentence splitter, and the content terms built from them.

Grounding, the offline synthesizer and reflector, the contrast split and the merge guard all read
text through it, so two of them never disagree about what a word, a stem or a sentence is.

- `stem`: a light English inflection stemmer (plurals, -ing, -ed, -ly of longer words, a final -e,
  the irregular past forms of common verbs and plurals of common nouns). It expects a casefolded word.
- `STOPWORDS`: function words (English closed classes: articles, pronouns, auxiliaries,
  prepositions, conjunctions, quantifiers, number words, days): never content. `GENERIC`: open-class
  words any chat holds ("like", "thing", "good"), kept apart: content to the guard, no claim to grounding.
- `DIALOGUE`: the words of a conversation about itself (acknowledgements, greetings, the listener's
  advice and suggestions, promises to follow them): a sentence holding only these and generic words
  says nothing about its speaker (`chat_line`).
- `sentences`: a sentence ends at . ! ? followed by a space and a capital, a digit or a quote
  (never inside "e.g. this" or "Frankfurt; then Lisbon").
- `printable` (issue 59): text as it may reach a terminal or a line format (the CLI's tables, `show`,
  the review TUI, a context's lines and headers): terminal control sequences and control characters
  removed, and, for a line format, on one line. Stored text stays as written: only its display changes.
"""

from __future__ import annotations

import functools
import re

# A token: letters and digits, inner ' _ . - kept ("4.4", "api.v2", "don't"); a lone character too.
WORD_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9'_.-]*[A-Za-z0-9]|[A-Za-z0-9]")
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")

WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
MONTHS = frozenset("january february march april may june july august september october november december".split())
RELATIVE_DAYS = frozenset({"yesterday", "today", "tomorrow"})
# English cardinal number words (issue 59: "fifteen" was no number, so "twelve books" / "fifteen books"
# looked like one claim): the units and teens, the tens, the scales. `number_phrases` reads compounds.
_UNITS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
          "seventeen eighteen nineteen").split()
_TENS = {w: 10 * n for n, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), start=2)}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 10 ** 6, "billion": 10 ** 9, "trillion": 10 ** 12}
NUMBER_WORDS = {w: str(v) for w, v in [*((w, n) for n, w in enumerate(_UNITS)), *_TENS.items(), *_SCALES.items()]}
_FIGURE_RE = re.compile(r"\d+(?:\.\d+)?")

# Function words, by class. The merge guard reads negations, numbers, days and a few opposites
# (before / after, new / old, few / many) itself, so it leaves out VALUE_WORDS (guard.py).
_FUNCTION = """a an the this that these those there here it its he him his she her hers they them their theirs
we us our ours you your yours i me my mine one ones someone somebody something
is are was were be been being am do does did doing done has have had having will would shall should can could
may might must of to in on at by for with from as into onto about than then so and or but if while when
because also just very too quite really some any each every all both either other another such own same
which who whom whose what where how why up down out over under off again further once more most
s t d ll m o re ve y mr mrs ms dr
i'm i'll i've i'd you're you'll you've you'd we're we'll we've they're they'll they've it's that's there's
here's what's let's he's she's"""
VALUE_WORDS = frozenset("""after before during since until new few many much only no not yes else etc per via vs
two three four five six seven eight nine ten""".split()) | WEEKDAYS | RELATIVE_DAYS
STOPWORDS = frozenset(_FUNCTION.split()) | VALUE_WORDS

# Open-class words too common in speech to carry a claim: a statement and a memory sharing only
# "like", "feel" or "friend" share no claim (grounding does not count them as support).
GENERIC = frozenset("""
right really actually pretty quite thing things stuff lot lots way ways kind sort bit good great nice well like
get got getting going go goes make made making take took want wanted know knew think thought feel felt say said
tell told see saw look looked come came time times day days year years people something anything everything
nothing someone everyone always never often sometimes still even ever much many lately recently
love enjoy prefer favorite favourite need wish hope try find happy sad interest interested interesting
friend friends life person user entity also usually week weeks bad best better new old little big small help keep
use used start started mention share talk him himself her herself hers myself yourself themselves currently
especially
""".split())

# English irregular verbs (the common ones of any grammar's table): their past and participle forms
# stem to the base form, as the regular -ed forms do (led / leads, written / writes).
_IRREGULAR_TABLE = """be was were been; begin began begun; break broke broken; bring brought; build built;
buy bought; catch caught; choose chose chosen; come came; do did done; draw drew drawn; drink drank drunk;
drive drove driven; eat ate eaten; fall fell fallen; feel felt; fight fought; find found; fly flew flown;
forget forgot forgotten; freeze froze frozen; get got gotten; give gave given; go went gone; grow grew grown;
have had; hear heard; hide hid hidden; hold held; keep kept; know knew known; lay laid; lead led;
lend lent; lose lost; make made; mean meant; meet met; pay paid; ride rode ridden; ring rang rung;
rise risen; run ran; say said; see seen; seek sought; sell sold; send sent; shake shook shaken;
shine shone; shoot shot; sing sang sung; sink sank sunk; sit sat; sleep slept; speak spoke spoken;
spend spent; stand stood; steal stole stolen; stick stuck; strike struck; swim swam swum; take took taken;
teach taught; tear tore torn; tell told; think thought; throw threw thrown; understand understood;
wake woke woken; wear wore worn; win won; write wrote written"""
# The irregular plurals of common nouns: women / woman align, as servers / server do.
_IRREGULAR_PLURALS = "man men; woman women; child children; person people; foot feet; tooth teeth; mouse mice"
_IRREGULAR = {form: forms.split()[0] for table in (_IRREGULAR_TABLE, _IRREGULAR_PLURALS)
              for forms in table.replace("\n", " ").split(";") for form in forms.split()[1:]}


@functools.lru_cache(maxsize=1 << 16)  # pure, called for every word of every pair the merge pass decides
def stem(word: str) -> str:
    """A light inflection stemmer over a casefolded word: plurals, -ing, -ed, the irregular past forms of
    common verbs, and the adverb / adjective -ly (nightly / night) of longer words."""
    w = _IRREGULAR.get(word, word)
    if w != word:
        return stem(w)
    if len(w) > 5 and w.endswith("ly") and not w.endswith(("ily", "ally", "bly")):
        w = w[:-2]  # nightly -> night, quickly -> quick (not: family, only, apply)
    if len(w) == 5 and w.endswith("ying"):
        return w[0] + "ie"  # lying / lie, dying / die, tying / tie (not: flying, saying)
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("sses", "shes", "ches", "xes")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
        if w in _IRREGULAR:
            return stem(w)  # thoughts / thought / think
    for suf in ("ing", "ed"):
        if len(w) > len(suf) + 2 and w.endswith(suf):
            w = w[: -len(suf)]
            if len(w) > 2 and w[-1] == w[-2] and w[-1] not in "lsz":
                w = w[:-1]  # running -> run
            return w
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]  # close / closed / closing align
    return w


GENERIC_STEMS = frozenset(stem(w) for w in GENERIC)

# The conversation talking about itself (issue 48): interjections and acknowledgements, greetings and
# thanks, the listener's help and how it is received, a promise to follow it. Word classes, not phrases:
# "Okay, those are very practical suggestions, and I'll do my best to follow them." holds nothing else.
DIALOGUE = frozenset("""
ok okay sure yes yeah yep alright hmm haha wow oh ah hi hello hey bye goodbye thank thanks please sorry welcome
glad pleasure honored honoured appreciate grateful advice advise suggestion suggest recommendation recommend tip
idea point sharing chat chatting talk talking question answer reply explanation encouragement wishes company
practical useful helpful reasonable sense sound true give follow consider try trying best mind buddy companion ai assistant
""".split())
DIALOGUE_STEMS = frozenset(stem(w) for w in DIALOGUE)
# Formulas said to the listener (thanks, goodbyes, "how about you"): never a fact about the speaker.
CHAT_RE = re.compile(
    r"\b(thanks?(?: you)? for (?:sharing|asking|listening|the)|thank you|talk to you (?:later|soon)|(?:i )?(?:have|got) "
    r"to go|see you|good ?bye|bye\b|nice (?:to|talking|chatting)|have a (?:nice|good|great)|you'?re welcome|"
    r"how about you|what about you|sounds good)", re.IGNORECASE)
# A sentence about the listener (issue 59): "You are a hardworking person", "You're so kind" says
# something of the one spoken to, nothing of the speaker. "You know, I ..." is a filler, not this.
ABOUT_LISTENER_RE = re.compile(
    r"^(?:(?:oh|wow|well|honestly|hey|and|but|haha|yes|yeah|ok|okay)[,!.]?\s+)*you(?:'re|’re|\s+(?:are|were|seem|"
    r"sound|look|must\s+be|have\s+been|'ve\s+been|always|really|truly|definitely)\b)", re.IGNORECASE)
# Leading acknowledgements and interjections with their punctuation (issue 59): "Yes, ", "Of course. ",
# "Sure, ", "Okay! ". A bare word must be followed by , . ! or a dash: "Sure Foods employs her" keeps it.
_ACK_RE = re.compile(
    r"^(?:(?:yes|yeah|yep|yup|sure|of course|certainly|absolutely|definitely|indeed|okay|ok|alright|all right|"
    r"right|well|oh|ah|wow|hmm|haha|great|cool|got it|i see|exactly|true)\s*(?:[,.!]+|\s[-–—])\s*)+",
    re.IGNORECASE)


def fold(word: str) -> str:
    """A token as the lists spell it: casefolded, possessive and edge quotes or dots dropped."""
    w = word.casefold().strip("'.")
    return w[:-2] if w.endswith("'s") else w


def tokens(text: str) -> list[tuple[str, str]]:
    """(stem, surface) pairs in order; a function word's stem is marked by its surface (see `content`)."""
    return [(stem(fold(w)), w) for w in WORD_RE.findall(text)]


def content(surface: str) -> bool:
    """A content word: neither it nor its stem a function word ("Fridays"), two characters or more."""
    w = fold(surface)
    return len(w) >= 2 and w not in STOPWORDS and stem(w) not in STOPWORDS


def content_terms(text: str) -> set[str]:
    """The stems of a text's content words, as the synthesizer and grounding compare texts."""
    return {s for s, w in tokens(text) if content(w)}


# A sentence in which the speaker speaks of themselves: "I", "my", "we're", "us" (English pronouns; the
# contractions with their apostrophe, so "were" and "well" are not read as "we're" and "we'll").
FIRST_PERSON_WORDS = frozenset({"i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves"})
_FIRST_PERSON_RE = re.compile(r"\b(?:" + "|".join(sorted(FIRST_PERSON_WORDS)) + r")\b", re.IGNORECASE)


def first_person(sentence: str) -> bool:
    """Whether a sentence speaks in the first person (the speaker's own state, plans, facts)."""
    return _FIRST_PERSON_RE.search(sentence) is not None


def sentences(text: str) -> list[str]:
    """The text's sentences, stripped, none empty."""
    return [s.strip() for s in _SENTENCE_RE.split(text or "") if s.strip()]


# Terminal control sequences, in their 7-bit (ESC ...) and 8-bit (C1) forms: a CSI (ESC [ or U+009B:
# parameters, intermediates, a final byte: "clear the screen", colours, cursor moves); a string command
# (OSC ESC ] or U+009D: window title, clipboard (OSC 52), hyperlinks; DCS, SOS, PM, APC) up to its BEL
# or ST terminator, or to the first control character when it has none; any other escape (ESC c resets
# the terminal). Removed whole: "[2J" or a window title left behind would be noise, not text.
_CONTROL_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x00-\x1f\x7f-\x9f]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]?")
# What is left after the sequences: C0 controls but tab and newline, DEL, C1 controls, and the bidi
# embeddings, overrides and isolates (U+202A-202E, U+2066-2069): formatting, not control characters, but
# an override reverses what follows on screen ("Trojan Source"), so a line could read as another.
_CONTROL_CHAR = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# Line breaks other than \n (CR, VT, FF, NEL, the Unicode line and paragraph separators): a lone CR
# would let later text overwrite a line on screen; each becomes one \n.
_BREAK = re.compile(r"\r\n?|[\x0b\x0c\x85\u2028\u2029]")


def printable(text: str, *, multiline: bool = False) -> str:
    """`text` as it may reach a terminal or a line format (issue 59): control sequences and control
    characters removed. By default on one line, whitespace runs as one space (a subject or a memory
    in a line format: a newline there would fake a header or a line). `multiline` keeps \n and \t
    (a memory's own paragraphs and indentation in `show` or the review TUI, where each line is the
    text's own) and turns every other line break into \n."""
    text = _CONTROL_SEQUENCE.sub("", _BREAK.sub("\n", text))
    text = _CONTROL_CHAR.sub("", text)
    return text if multiline else " ".join(text.split())


def number_phrases(words: list[str]) -> list[tuple[int, int, float]]:
    """(start, end, value) of each cardinal number spelt in words, in order: "fifteen" 15, "twenty five"
    25, "one hundred and five" 105, "two thousand three hundred" 2300, "2 million" 2000000 (a figure
    before a scale word is its multiplier). `words`: casefolded tokens, hyphenated compounds split
    ("twenty-five" as "twenty", "five"). Words that do not continue a number start another ("five six":
    5 and 6; "twelve fifteen": 12 and 15)."""
    out: list[tuple[int, int, float]] = []
    i = 0
    while i < len(words):
        lead = _FIGURE_RE.fullmatch(words[i]) and i + 1 < len(words) and words[i + 1] in _SCALES
        end, value = _number_at(words, i + 1 if lead else i, float(words[i]) if lead else None)
        if end > i:
            out.append((i, end, value))
            i = end
        else:
            i += 1
    return out


def _number_at(words: list[str], i: int, figure: float | None) -> tuple[int, float]:
    """(end, value) of the number spelt from words[i] (`figure`: a multiplier read before it); end == i
    when none starts there. `last` is what came before: a unit or teen only takes a scale after it, a
    ten a unit 1-9 or a scale, a scale anything smaller."""
    total, current, last, scale = 0.0, figure or 0.0, "figure" if figure is not None else None, None
    j = i
    while j < len(words):
        w = words[j]
        if w == "and" and last == "scale" and j + 1 < len(words) and (words[j + 1] in _TENS or words[j + 1] in _UNITS):
            j += 1  # "one hundred and five"
            continue
        if w in _UNITS and (last in (None, "scale") or (last == "ten" and 0 < _UNITS.index(w) < 10)):
            current, last = current + _UNITS.index(w), "unit"
        elif w in _TENS and last in (None, "scale"):
            current, last = current + _TENS[w], "ten"
        elif w == "hundred" and last != "scale" and (current or 1) < 100:
            current, last = (current or 1) * 100, "scale"
        elif w in _SCALES and w != "hundred" and (scale is None or _SCALES[w] < scale):
            total, current, last, scale = total + (current or 1) * _SCALES[w], 0.0, "scale", _SCALES[w]
        else:
            break
        j += 1
    return j, total + current


def squash(text: str) -> str:
    """Lower-case words and digits, one space apart: case and punctuation aside."""
    return " ".join(re.findall(r"[a-z0-9']+", text.casefold()))


def shown_in(statement: str, texts: dict[str, str]) -> list[str]:
    """The ids whose text shows `statement` word for word (case and punctuation aside)."""
    said = squash(statement)
    return [i for i, t in texts.items() if said and f" {said} " in f" {squash(t)} "]


def chat_line(sentence: str) -> bool:
    """A sentence said to the listener rather than about the speaker: a question, a formula (CHAT_RE),
    one about the listener (ABOUT_LISTENER_RE), or one whose content words, generic ones aside, are
    all the conversation's own (DIALOGUE)."""
    if sentence.rstrip().endswith("?") or CHAT_RE.search(sentence) or ABOUT_LISTENER_RE.search(sentence.strip()):
        return True
    words = content_terms(sentence) - GENERIC_STEMS
    return bool(words) and words <= DIALOGUE_STEMS


def unacknowledged(text: str) -> str:
    """`text` without its leading acknowledgements ("Yes, I like ..." -> "I like ...", "Of course. Ana
    plays ..." -> "Ana plays ..."), its first letter capitalised when one was cut; "" when it held nothing else."""
    rest = _ACK_RE.sub("", text.strip(), count=1)
    return rest[:1].upper() + rest[1:] if rest != text.strip() else rest


def own_words(text: str) -> str:
    """What a chat turn states about its speaker: its sentences that are not chat lines (a question to
    the listener or about the listener's suggestions, thanks, an acknowledgement) - what may support a
    statement about the speaker (issue 48)."""
    return " ".join(s for s in sentences(text) if not chat_line(s))
