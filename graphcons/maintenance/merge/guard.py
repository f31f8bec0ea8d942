"""The difference check: why two near-identical texts may still disagree.

Cosine similarity cannot see a flipped direction, a negation or swapped roles (seed 003;
MODELS.md), so both texts are normalised and aligned word by word first (maintenance/values.py: words,
figures, days, names and their slots) and their content words compared: those present in one text
and absent from the other (`only_a`, `only_b`).

A difference in meaning, any of which keeps a pair apart (`CONFLICTS_WITH`, never a merge):
- negation: one text negates (not, no, never, without, ...) and the other does not;
- antonym / direction: the texts differ by a pair of opposites (top/bottom, into/out of,
  on/off, hot/cold, open/closed, before/after, increase/decrease, ...; or a negating prefix,
  happy/unhappy, agree/disagree) where each side has its own half; opposite function words
  (in/out, into/from) only next to the same content word;
- contrast: two members of one closed class (colours, sports, instruments, meals, postures) in
  the same slot ("a soccer ball" / "a tennis ball");
- role reversal: the same words with the roles around a shared word swapped ("the turtle
  follows the fish" / "the fish follows the turtle"), compared in active-voice order, so an
  active/passive pair ("the fish is followed by the turtle") is the same claim, not a reversal;
- numbers / dates / names: each text has one the other lacks IN THE SAME SLOT (the word
  before or after it is the same in both: "deploy 4.2" / "deploy 4.3", "by Alice" / "by Bob");
  one text adding a detail the other leaves out is not a contradiction.
  Restatements are not differences: a figure rounded (6.32 / 6.3), a relative day against a
  weekday or month ("yesterday" / "Sunday": the same day, told on another), an acronym against
  its spelt-out name (CDC / Centers for Disease Control).
Cause and fix (issue 41): a problem stated under a condition ("times out when the cache is cold") and
the remedy that removed it ("timeouts fixed by warming the cache", "timed out until we warmed it") are
two facts that fit together, not one attribute with two values: an opposite or a negation that lies
inside the condition clause of one text and inside the remedy clause of the other keeps the pair
apart, never a conflict.
A negation counts only when the other text has no negative word of its own ("failed to",
"declined to"), is no idiom ("not only", "nothing but"), and governs shared content (one of the three content words after
the cue is in the other text) or stands for an argument (nobody, nothing, none): "did not identify" added in a longer clause is a detail.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import jellyfish

from graphcons.core.memory import derived_title
from graphcons.core.text import stem
from graphcons.maintenance.values import (NEGATIONS, STOPWORDS, absent_names, acronyms, content_neighbours,
                                          content_stems, contrasts, count_differs, date_kind, date_tokens, dates,
                                          identifiers, names, normalise, number_tokens, numbers, same_slot,
                                          unrounded, words)

# Opposites: general English antonym and direction pairs (closed-class directions first),
# chosen as a lexicon, not from the dev sentences. Matched on stems, either way round.
_OPPOSITES = [
    ("top", "bottom"), ("up", "down"), ("upstairs", "downstairs"), ("into", "out"), ("in", "out"),
    ("inside", "outside"), ("on", "off"), ("onto", "off"), ("above", "below"), ("over", "under"),
    ("before", "after"), ("front", "behind"), ("front", "back"), ("left", "right"), ("north", "south"),
    ("east", "west"), ("toward", "away"), ("towards", "away"), ("upward", "downward"), ("ascend", "descend"),
    ("rise", "fall"), ("increase", "decrease"), ("raise", "lower"), ("gain", "lose"), ("win", "lose"),
    ("push", "pull"), ("open", "close"), ("open", "shut"), ("start", "stop"), ("start", "finish"),
    ("begin", "end"), ("enter", "exit"), ("enter", "leave"), ("arrive", "leave"), ("arrive", "depart"),
    ("come", "go"), ("give", "take"), ("buy", "sell"), ("accept", "reject"), ("allow", "forbid"),
    ("allow", "deny"), ("enable", "disable"), ("include", "exclude"), ("add", "remove"), ("attach", "detach"),
    ("appear", "disappear"), ("pass", "fail"), ("succeed", "fail"), ("success", "failure"), ("true", "false"),
    ("yes", "no"), ("always", "never"), ("all", "none"), ("everyone", "nobody"), ("many", "few"),
    ("more", "less"), ("more", "fewer"), ("most", "least"), ("max", "min"), ("maximum", "minimum"),
    ("first", "last"), ("early", "late"), ("earlier", "later"), ("old", "new"), ("old", "young"),
    ("new", "used"), ("hot", "cold"), ("warm", "cold"), ("warm", "cool"), ("wet", "dry"), ("light", "dark"),
    ("light", "heavy"), ("big", "small"), ("large", "small"), ("big", "little"), ("tall", "short"),
    ("long", "short"), ("high", "low"), ("higher", "lower"), ("fast", "slow"), ("faster", "slower"),
    ("quick", "slow"), ("strong", "weak"), ("hard", "soft"), ("hard", "easy"), ("thick", "thin"),
    ("fat", "thin"), ("wide", "narrow"), ("deep", "shallow"), ("full", "empty"), ("clean", "dirty"),
    ("rich", "poor"), ("cheap", "expensive"), ("good", "bad"), ("better", "worse"), ("best", "worst"),
    ("right", "wrong"), ("correct", "incorrect"), ("safe", "dangerous"), ("happy", "sad"),
    ("laugh", "cry"), ("love", "hate"), ("like", "dislike"), ("friend", "enemy"), ("alive", "dead"),
    ("live", "die"), ("present", "absent"), ("public", "private"), ("internal", "external"),
    ("online", "offline"), ("healthy", "sick"), ("awake", "asleep"),
    ("sit", "stand"), ("day", "night"), ("morning", "evening"),
    ("man", "woman"), ("men", "women"), ("boy", "girl"), ("male", "female"), ("husband", "wife"),
    ("father", "mother"), ("son", "daughter"), ("brother", "sister"), ("king", "queen"),
    ("black", "white"), ("accept", "decline"), ("approve", "reject"), ("agree", "refuse"),
    ("import", "export"), ("input", "output"), ("upload", "download"), ("lock", "unlock"),
    ("win", "defeat"), ("victory", "defeat"), ("near", "far"), ("close", "far"), ("huge", "tiny"),
    ("huge", "small"), ("large", "tiny"), ("big", "tiny"), ("catch", "miss"), ("hit", "miss"),
    ("remember", "forget"), ("find", "lose"), ("loud", "quiet"), ("loud", "silent"), ("notice", "ignore"),
    ("obey", "disobey"), ("most", "fewest"), ("sunny", "cloudy"), ("same", "different"), ("profit", "loss"), ("asc", "desc"), ("ascending", "descending"),
    ("inbound", "outbound"), ("send", "receive"), ("into", "from"), ("onto", "from"),
    ("resume", "suspend"), ("resume", "pause"),
]
_NEG_PREFIXES = ("un", "in", "im", "ir", "il", "dis", "non", "non-", "de")
_PRONOUN_NEGATIONS = {"nobody", "nothing", "none", "noone", "nowhere"}  # they replace an argument
# Negation cues that negate nothing: "not only X but Y" asserts X, "nothing but praise" is only praise.
_NOT_NEGATING = {("not", "only"), ("nothing", "but")}
# Verbs and adjectives that carry a negation themselves: "failed to meet" = "did not meet",
# "declined to comment" = "had no comment" (English closed list, not fitted to any data set).
_NEGATIVE_WORDS = {"fail", "failure", "decline", "refuse", "lack", "unable", "absent", "avoid", "deny", "neglect",
                   "omit", "prevent", "yet"}
_BE = {"is", "are", "was", "were", "be", "been", "being", "get", "gets", "got", "getting"}
# Cause and fix: the words that open a condition clause, and the (stemmed) remedy cues whose clause names
# what removed a problem ("fixed by warming", "resolved by opening", "until we warmed"). English closed
# lists, not words of any data set.
_CONDITION_CUES = {"when", "whenever", "if", "once", "while"}
_REMEDY_CUES = {"fix", "resolv", "solv", "cur", "repair", "mitigat", "remedi", "workaround", "until"}




_NEGATIVE_STEMS = {stem(w) for w in _NEGATIVE_WORDS}
_FUNCTION_STEMS = {stem(w) for w in STOPWORDS}
_OPP = {}
for _x, _y in _OPPOSITES:
    _OPP.setdefault(stem(_x), set()).add(stem(_y))
    _OPP.setdefault(stem(_y), set()).add(stem(_x))


def _opposites(only_a: set[str], only_b: set[str]) -> list[str]:
    """Pairs of opposites with one half only in each text (or a negating-prefix pair)."""
    found = []
    for x in sorted(only_a):
        for y in sorted(_OPP.get(x, ())):
            if y in only_b:
                found.append(f"{x}/{y}")
        for p in _NEG_PREFIXES:
            if x.startswith(p) and len(x) - len(p) >= 4 and x[len(p):] in only_b:
                found.append(f"{x}/{x[len(p):]}")
    for y in sorted(only_b):
        for p in _NEG_PREFIXES:
            if y.startswith(p) and len(y) - len(p) >= 4 and y[len(p):] in only_a:
                found.append(f"{y[len(p):]}/{y}")
    return found


def _opposed_here(pair: str, wa: list[str], wb: list[str]) -> bool:
    """Opposite function words (in/out, into/from, on/off) oppose each other only in the same place:
    next to the same content word ("into a pan" / "from a pan"); "came into the country" and "a
    flight from London" are two facts. Content-word opposites (hot/cold) count anywhere."""
    x, y = pair.split("/")
    if x not in _FUNCTION_STEMS or y not in _FUNCTION_STEMS:
        return True
    na, nb = content_neighbours(wa, x) | content_neighbours(wb, x), content_neighbours(wa, y) | content_neighbours(wb, y)
    return bool(na & nb)


def _swapped_roles(seq_a: list[str], seq_b: list[str], max_role: int = 3, max_pivot: int = 3) -> bool:
    """Two short spans exchange places around a shared pivot: A = P X V Y S and B = P Y V X S
    (X, Y at most `max_role` words, V at most `max_pivot`): "the turtle follows the fish" /
    "the fish follows the turtle". Moving a whole clause (X Y -> Y X, no pivot) is a paraphrase."""
    i = 0
    while i < min(len(seq_a), len(seq_b)) and seq_a[i] == seq_b[i]:
        i += 1
    j = 0
    while j < min(len(seq_a), len(seq_b)) - i and seq_a[-1 - j] == seq_b[-1 - j]:
        j += 1
    a, b = seq_a[i:len(seq_a) - j], seq_b[i:len(seq_b) - j]
    if len(a) != len(b) or not a:
        return False
    for lx in range(1, max_role + 1):
        for lv in range(1, max_pivot + 1):
            ly = len(a) - lx - lv
            if 1 <= ly <= max_role and b == a[lx + lv:] + a[lx:lx + lv] + a[:lx]:
                return True
    return False


def _active_order(ws: list[str]) -> list[str]:
    """Content stems in active-voice order: a passive "patient is VERB-ed ... by agent" becomes
    "agent VERB-ed ... patient", so "the fish is followed by the turtle" reads as "the turtle follows
    the fish" and only a real exchange of roles remains a swap."""
    be = next((i for i, w in enumerate(ws) if w in _BE), None)
    by = next((i for i, w in enumerate(ws) if w == "by" and be is not None and i > be), None)
    if by is None:
        return content_stems(ws)
    return content_stems(ws[by + 1:]) + content_stems(ws[be + 1:by]) + content_stems(ws[:be])


def _negating(ws: list[str]) -> list[str]:
    """`ws` with the cues that negate nothing ("not only", "nothing but") blanked."""
    return ["_" if (w, ws[i + 1] if i + 1 < len(ws) else "") in _NOT_NEGATING else w for i, w in enumerate(ws)]


def _negated(ws: list[str], shared: set[str]) -> Counter:
    """What a text negates: per negation cue, the first of the next three content words that both texts
    have (its stem; "never drinks coffee" -> drink, "no longer works" -> work); a pronoun that negates an
    argument (nobody, nothing, none) counts as itself. Counted: "no longer ships to Porto and no longer ships
    to Braga" negates `ship` twice."""
    out: Counter = Counter()
    for i, w in enumerate(ws):
        if w in _PRONOUN_NEGATIONS:
            out[w] += 1
        elif w in NEGATIONS:
            following = [stem(x) for x in ws[i + 1 + (ws[i + 1:i + 2] == ["longer"]):]  # "no longer" is one cue
                         if x not in STOPWORDS and x not in NEGATIONS][:3]
            out.update(next(([x] for x in following if x in shared), []))
    return out


@dataclass
class Differences:
    """What the two texts do not share; `conflicts` are differences in meaning."""

    conflicts: list[str] = field(default_factory=list)
    apart: list[str] = field(default_factory=list)  # why the two never merge though neither contradicts the other
    opposites: list[str] = field(default_factory=list)
    only_a: list[str] = field(default_factory=list)  # content stems only in the first text
    only_b: list[str] = field(default_factory=list)
    content_a: int = 0  # distinct content stems per text
    content_b: int = 0
    shared: int = 0
    bigram_overlap: float = 0.0  # shared / all distinct content-word bigrams (phrasing kept)
    order_ratio: float = 0.0  # difflib ratio of the two content-word sequences (order kept)
    unmatched: int = 0  # one-sided content words with no close spelling on the other side
    detail_added: float = 0.0  # a number, date or name only one text has (a detail, not a conflict)
    runs: tuple[int, int] = (0, 0)  # per text, its longest run of content words the other lacks (an added clause)
    lone: tuple[int, int] = (0, 0)  # per text, its content words (with repeats) the other lacks
    run_share: float = 0.0  # the longer run over its text's content words (the larger of the two)
    token_ratio: float = 1.0  # shorter text's words over the longer's
    numbers_only: int = 0  # numbers one text has and the other not (both sides)
    numbers_shared: float = 1.0  # shared / all distinct numbers (1 when neither has any)
    names_only: int = 0  # names one text has and the other lacks (both sides)
    names_shared: float = 1.0  # 1 - names_only / all names (1 when neither has any)
    substitutions: int = 0  # pairs of one-sided words, one per text, in the same slot (a word replaced)


_COPULAS = {"is", "are", "was", "were"}
_DETERMINERS = {"a", "an", "the", "my", "our", "your", "his", "her", "its", "their"}


def _restated_class(ws: list[str], shared: set[str], only: set[str]) -> set[str]:
    """The one-sided head noun of a copula that only names the class of the shared subject:
    "X is the user's preferred language" restates "the user prefers X" (X is a language) and
    adds no fact. Only for a sentence that is one copula `NP1 is NP2` where one side is a single
    shared content word and the other's content is shared but for its head (its last word)."""
    idx = next((i for i, w in enumerate(ws) if w in _COPULAS), None)
    if idx is None or not only or idx + 1 >= len(ws) or ws[idx + 1] not in _DETERMINERS:
        return set()  # "is eating meat", "are near a dog": an auxiliary or a place, not "is the / a <class>"
    left, right = content_stems(ws[:idx]), content_stems(ws[idx + 1:])
    for one, phrase in ((left, right), (right, left)):
        if len(one) == 1 and one[0] in shared and len(phrase) >= 2 and phrase[-1] in only \
                and set(phrase[:-1]) <= shared and phrase.count(phrase[-1]) == 1:
            return {phrase[-1]}
    return set()


def _value_reasons(wa: list[str], wb: list[str], xa: set[str], xb: set[str], da: set[str],
                   db: set[str]) -> list[str]:
    """"numbers" / "dates" when each text has a figure or a day of one kind the other lacks in the same slot."""
    reasons = []
    ua, ub = unrounded(xa - xb, xb - xa)
    if (ua and ub and same_slot(wa, number_tokens(wa, ua), wb, number_tokens(wb, ub))) \
            or count_differs(wa, wb) or count_differs(wb, wa):
        reasons.append("numbers")
    kinds = {date_kind(d) for d in da - db} & {date_kind(d) for d in db - da}
    ua, ub = {d for d in da - db if date_kind(d) in kinds}, {d for d in db - da if date_kind(d) in kinds}
    if ua and ub and same_slot(wa, date_tokens(wa, ua), wb, date_tokens(wb, ub)):
        reasons.append("dates")
    return reasons


def differences(text_a: str, text_b: str) -> Differences:
    """What the two texts do not share and which of those differences are in meaning (`Differences`)."""
    wa, wb = words(text_a), words(text_b)
    ca, cb, sa, sb, only_a, only_b, acr_a, acr_b = _content(text_a, text_b, wa, wb)
    reasons = []
    neg_a, neg_b, negation = _one_sided_negation(wa, wb, sa & sb)
    if negation:
        reasons.append("negation")
    pairs, opp = _opposed(wa, wb)
    if opp:
        reasons.append("antonym")
    contrasted = contrasts(only_a, only_b, wa, wb)
    if contrasted:
        reasons.append("contrast")
    if sa == sb and len(sa) >= 3 and _swapped_roles(_active_order(wa), _active_order(wb)):
        reasons.append("role_reversal")
    xa, xb, da, db = numbers(normalise(text_a), wa), numbers(normalise(text_b), wb), dates(wa), dates(wb)
    reasons += _value_reasons(wa, wb, xa, xb, da, db)
    na, nb = names(text_a) - acr_a, names(text_b) - acr_b
    only_na, only_nb = absent_names(na, wb, sb), absent_names(nb, wa, sa)
    names_conflict, names_apart = _names_apart(wa, wb, only_na, only_nb)
    if names_conflict:
        reasons.append("names")
    ba, bb = set(zip(ca, ca[1:])), set(zip(cb, cb[1:]))
    close = [(x, y) for x in only_a for y in only_b if jellyfish.jaro_winkler_similarity(x, y) >= 0.88]  # symmetric
    lone_a, lone_b = only_a - {x for x, _ in close}, only_b - {y for _, y in close}
    run_a, run_b = _added_run(ca, lone_a), _added_run(cb, lone_b)
    detail = bool(xa ^ xb) or bool(da ^ db) or bool(only_na or only_nb)
    apart = (["question"] if _asks(text_a) != _asks(text_b) else []) + names_apart
    ida, idb = identifiers(text_a), identifiers(text_b)
    if ida - idb and idb - ida:  # two things (deploy 4.2 / deploy 4.3): whatever else differs is no conflict
        reasons = []
        apart.append("different things: " + ", ".join(sorted(ida - idb)[:3]) + " / " + ", ".join(sorted(idb - ida)[:3]))
    if reasons and set(reasons) <= _VALUE_REASONS and _record(text_a) and _record(text_b):
        apart.append(f"two machine records differing in {', '.join(reasons)}: two readings, not one claim")
        reasons = []
    if reasons and set(reasons) <= {"antonym", "negation"} and _cause_and_fix_pair(wa, wb, pairs, neg_a, neg_b):
        apart.append(f"cause and fix, not one attribute with two values: {', '.join(opp) or 'negation'}")
        reasons = []
    if reasons:  # one attribute of one thing: the rest of the two texts must say the same
        swapped = _differing(only_na | only_nb, da ^ db, pairs + contrasted)
        rest = _rest_overlap(sa & sb, only_a - swapped, only_b - swapped)
        if rest < (SAME_THING_VALUES if set(reasons) <= _VALUE_REASONS else SAME_THING):
            apart.append(f"differs in more than {', '.join(reasons)}: {rest:.2f} of the rest shared")
            reasons = []
    return Differences(conflicts=reasons, apart=apart, opposites=opp, only_a=sorted(only_a), only_b=sorted(only_b),
                       content_a=len(sa), content_b=len(sb), shared=len(sa & sb),
                       bigram_overlap=len(ba & bb) / len(ba | bb) if ba | bb else 1.0,
                       order_ratio=difflib.SequenceMatcher(None, ca, cb, autojunk=False).ratio(),
                       unmatched=len(lone_a) + len(lone_b), detail_added=float(detail),
                       runs=(run_a, run_b), lone=(sum(w in lone_a for w in ca), sum(w in lone_b for w in cb)),
                       run_share=max(run_a / len(ca) if ca else 0.0, run_b / len(cb) if cb else 0.0),
                       token_ratio=min(len(wa), len(wb)) / max(len(wa), len(wb), 1),
                       numbers_only=len(xa ^ xb), numbers_shared=len(xa & xb) / len(xa | xb) if xa | xb else 1.0,
                       names_only=len(only_na) + len(only_nb),
                       names_shared=1 - (len(only_na) + len(only_nb)) / (len(na) + len(nb)) if na or nb else 1.0,
                       substitutions=_substitutions(ca, lone_a, cb, lone_b))


def _content(text_a: str, text_b: str, wa: list[str],
             wb: list[str]) -> tuple[list[str], list[str], set[str], set[str], set[str], set[str], set[str], set[str]]:
    """Each text's content stems (in order, then as a set), those only one text has, and each text's
    acronyms of the other's names: an acronym and its spelt-out name are aligned words, not one-sided."""
    ca, cb = content_stems(wa), content_stems(wb)
    sa, sb = set(ca), set(cb)
    only_a, only_b = sa - sb, sb - sa
    acr_a, acr_b = acronyms(text_a, text_b)  # UN / United Nations: aligned words, not one-sided
    only_a, only_b = only_a - {stem(w) for w in acr_a}, only_b - {stem(w) for w in acr_b}
    if not only_a or not only_b:  # one text contains the other: a restated class is no added fact
        restated = _restated_class(wa, sa & sb, only_a) | _restated_class(wb, sa & sb, only_b)
        only_a, only_b = only_a - restated, only_b - restated
        sa, sb = sa - restated, sb - restated
        ca, cb = [w for w in ca if w not in restated], [w for w in cb if w not in restated]
    return ca, cb, sa, sb, only_a, only_b, acr_a, acr_b


def _one_sided_negation(wa: list[str], wb: list[str], shared: set[str]) -> tuple[Counter, Counter, bool]:
    """What each text negates, and whether a shared word is negated in one text only ("Bob never
    replied" / "Bob replied", whatever else either text negates), unless the other says it with a
    negative word of its own ("did not" / "failed to")."""
    ga, gb = _negating(wa), _negating(wb)
    st_a, st_b = set(map(stem, wa)), set(map(stem, wb))
    neg_a, neg_b = _negated(ga, shared), _negated(gb, shared)
    one_sided = bool((neg_a - neg_b and not _NEGATIVE_STEMS & (st_b - st_a))
                     or (neg_b - neg_a and not _NEGATIVE_STEMS & (st_a - st_b)))
    return neg_a, neg_b, one_sided


def _opposed(wa: list[str], wb: list[str]) -> tuple[list[str], list[str]]:
    """The pairs of opposites the two texts differ by (as stems, and as the words were written)."""
    all_a, all_b = {stem(w) for w in wa}, {stem(w) for w in wb}  # function words too: in/out, on/off
    surface = {stem(w): w for w in reversed(wa + wb)}  # report words as written, not stems
    pairs = [pair for pair in _opposites(all_a - all_b, all_b - all_a) if _opposed_here(pair, wa, wb)]
    return pairs, ["/".join(surface.get(x, x) for x in pair.split("/")) for pair in pairs]


def _names_apart(wa: list[str], wb: list[str], only_na: set[str], only_nb: set[str]) -> tuple[bool, list[str]]:
    """Each text names someone the other does not: in the same slot a conflict; in a slot only a function
    word marks, two things (never merged)."""
    if only_na and only_nb:
        if same_slot(wa, only_na, wb, only_nb):
            return True, []
        if same_slot(wa, only_na, wb, only_nb, loose=True):
            return False, ["different names: " + ", ".join(sorted(only_na)) + " / " + ", ".join(sorted(only_nb))]
    return False, []


def _cause_and_fix_pair(wa: list[str], wb: list[str], pairs: list[str], neg_a: Counter, neg_b: Counter) -> bool:
    """One text states the problem and the other its remedy, either way round (`_cause_and_fix`), over
    both halves of each opposite and each one-sided negated word."""
    halves = [x for pair in pairs for x in pair.split("/")] + list((neg_a - neg_b) + (neg_b - neg_a))
    return _cause_and_fix(wa, wb, halves) or _cause_and_fix(wb, wa, halves)


def _differing(only_names: set[str], only_dates: set[str], opposed: list[str]) -> set[str]:
    """The stems that make the difference in meaning (the names, days, opposites and contrasted words
    one text has): left out when asking whether the rest of the two texts says the same."""
    return {stem(n) for n in only_names} | {stem(n.rstrip(".")) for n in only_names} | {stem(d) for d in only_dates} \
        | {x for pair in opposed for x in pair.split("/")}


# A difference in meaning is a conflict only between two texts about one thing: the content words besides
# the ones that differ must mostly be shared (Jaccard). A value (a figure, a date, a name) needs more of the
# rest than a negation or an opposite does: two reports of one market day ("rose 0.3 per cent at 9,886" /
# "rose 0.5 per cent at 9,905", in other words) or of one lease's retries are two readings, not one claim
# contradicted. Chosen on MRPC train duplicates and SICK train contradictions (bench/merge/cross.py reports
# all three data sets and the Loghub lines).
SAME_THING = 0.5
SAME_THING_VALUES = 0.8
_VALUE_REASONS = {"numbers", "dates", "names"}


# A machine record (a log line, a metrics sample): key=value or key:value fields, camelCase or snake_case
# names, URLs, paths, host names, bracketed fields. Two records of one kind that differ in a figure are two readings
# taken at two moments (a lease retried for 100 s, then for 101 s), both true: not a claim and its contradiction.
_RECORD_RE = re.compile(r"\w\s?=\s?[\w/.-]|[A-Za-z_]:[\w/]|\b[a-z]+[A-Z]\w*|\b[A-Za-z]+_\w+|://|\w/\w+/|\[[^\]\s]+\]"
                        r"|\b[A-Za-z][\w-]*\.[A-Za-z][\w-]*\.[A-Za-z]{2,}\b")  # a host name


def _cause_and_fix(fix: list[str], cause: list[str], halves: list[str]) -> bool:
    """`fix` states a remedy and `cause` the problem under a condition, and every differing stem (`halves`:
    both halves of each opposite, each one-sided negated word) that either text has stands inside that
    text's clause: after the remedy cue in `fix`, after the condition cue in `cause`."""
    def clause(ws: list[str], cues: Any) -> set[str]:
        at = next((i for i, w in enumerate(ws) if w in cues or stem(w) in cues), None)
        return set() if at is None else {stem(w) for w in ws[at + 1:]}

    remedy = clause(fix, _REMEDY_CUES)
    condition = clause(cause, _CONDITION_CUES)
    if not remedy or not condition or clause(fix, _CONDITION_CUES):
        return False
    fix_stems, cause_stems = {stem(w) for w in fix}, {stem(w) for w in cause}
    return all((x not in fix_stems or x in remedy) and (x not in cause_stems or x in condition) for x in halves) \
        and any(x in remedy for x in halves) and any(x in condition for x in halves)


def _record(text: str) -> bool:
    return bool(_RECORD_RE.search(text))


def _rest_overlap(shared: set[str], only_a: set[str], only_b: set[str]) -> float:
    union = len(shared) + len(only_a) + len(only_b)
    return len(shared) / union if union else 1.0


def _asks(text: str) -> bool:
    """A question ("Is it legal?"), not a statement: the two never restate each other."""
    return text.rstrip().rstrip("\"')").endswith("?")


def _substitutions(ca: list[str], lone_a: set[str], cb: list[str], lone_b: set[str]) -> int:
    """One-sided words of each text in the same slot (the same content word, or the text's start or
    end, next to them): a word replaced by another ("a soccer ball" / "a tennis ball"), not added."""
    def slots(seq: list[str], lone: set[str]) -> dict[str, set[tuple[str, str]]]:
        out: dict[str, set[tuple[str, str]]] = {}
        for i, w in enumerate(seq):
            if w in lone:
                out.setdefault(w, set()).update({("before", seq[i - 1] if i else "^"),
                                                 ("after", seq[i + 1] if i + 1 < len(seq) else "$")})
        return out
    sa, sb = slots(ca, lone_a), slots(cb, lone_b)
    return sum(1 for x in sa for y in sb if sa[x] & sb[y])


def _added_run(seq: list[str], lone: set[str]) -> int:
    """The longest run of consecutive content words of `seq` the other text lacks (no close spelling
    either): an added clause ("..., until elections can be held") rather than words said differently."""
    best = run = 0
    for w in seq:
        run = run + 1 if w in lone else 0
        best = max(best, run)
    return best


def contradictions(text_a: str, text_b: str) -> list[str]:
    """Why two near-identical texts may disagree (the `conflicts` of `differences`); empty when none."""
    return differences(text_a, text_b).conflicts


def compare_title(mem: dict[str, Any]) -> tuple[str, bool]:
    """(title used for comparison, derived?): untitled memories use their first sentence."""
    if mem.get("title_derived") or not (mem.get("title") or "").strip():
        return derived_title(mem.get("content") or ""), True
    return mem["title"], False


def guard_text(mem: dict[str, Any]) -> str:
    title, derived = compare_title(mem)
    return mem.get("content") or "" if derived else f"{title}. {mem.get('content') or ''}"
