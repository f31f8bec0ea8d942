"""Do no harm, exactly (issue 61; BRIEF principles 11 and 13): what consolidation made (an insight,
a digest's facts) takes a place in `retrieve`'s first k or in a context only where it carries the
query-relevant content of what it displaces in fewer tokens. Otherwise it routes: its members that
the query ranks best take its place, each memory once (recall/retrieval.py, recall/context.py).

The test compares the content a query needs, not word overlap: a text's relevant sentences are
those that share a content word (a stem) with the query; what they state is their content words.
An extractive digest (its facts are its members' own sentences) never passes: the same sentences
cost the same tokens, and a fact folding three restatements drops the details the others add.
An abstractive one that states what its members say, in one short line, does.
"""

from __future__ import annotations

from graphcons.core.cost import tokens
from graphcons.core.text import content_terms, sentences


def relevant(text: str, terms: set[str]) -> list[str]:
    """The sentences of `text` that share a content word with the query (`terms`), in order."""
    return [s for s in sentences(text) if terms & content_terms(s)]


def needs(texts: list[str], terms: set[str]) -> set[str]:
    """What the query needs of these texts: the content words of their relevant sentences."""
    return set().union(*(content_terms(s) for t in texts for s in relevant(t, terms)))


def carries(own: list[str], displaced: list[str], terms: set[str], cost: tuple[int, int] | None = None) -> bool:
    """Whether `own` (an insight's text, or its facts) may take the place of `displaced` (the texts
    of the members it would stand for): its relevant sentences state every content word of theirs,
    and it costs fewer tokens than they do (`cost`: what each side costs as shown, when that is not
    its texts alone, e.g. a context's lines with their ids). Nothing relevant displaced, or nothing
    relevant said: it routes."""
    need, have = needs(displaced, terms), needs(own, terms)
    if not need or not have or not need <= have:
        return False
    mine, theirs = cost or (sum(tokens(t) for t in own), sum(tokens(t) for t in displaced))
    return mine < theirs
