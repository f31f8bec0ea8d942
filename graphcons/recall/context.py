"""A context an agent can paste (issue 39): `context(query, budget_words)` is the text block an
agent puts into its prompt, built from `retrieve`'s ranking.

- Chosen best hits first (the plain ranking: each memory in its own place), packed until the
  word budget, and shown by day, the newest day first (below); the block is never over the budget. A memory longer than what is left shows its
  (at most two) sentences that share the most query words, in their order, as an excerpt marked
  "(excerpt)" with its date and id (issue 51: a 350-word chat turn could never enter a 300-word context;
  issue 61: more sentences took the room of the memories after it); one that shares none is skipped (a
  shorter one after it may still fit).
- Every line cites its memory, so an agent can cite it: by a short reference, "#3", the memory's
  place in the context's ranking (`refs` maps each to its id; `[retrieval] context_refs = "id"` writes
  the ids themselves, which cost 15-25 model tokens each in a LangGraph store: issues 61, 63);
  `lines[].ids` lists every memory a line rests on. Each line sits under the header of its day (the memory's `created_at`, which a caller sets
  to when the event happened): one "8 May 2023:" per day instead of a date on every line (issue 47:
  words an agent pays for and reads nothing new in); `lines[].date` keeps each line's day.
  The newest day comes first (issue 51: what a later memory says of a thing is read before what
  an earlier one said, whether or not an update was noticed); within a day, rank order.
  A relative time expression is followed by the day it names, resolved against that date
  ("ran a race last Saturday [20 May 2023]"; core/eventtime, issue 47): what no ranking can add.
- An insight is shown as its id and the facts of its digest most relevant to the query (those
  whose members rank best), each with its date and its first member's id, but only where those
  lines pass the floor (issue 61, recall/route.py): they state the query-relevant content of the
  members' lines they displace, in fewer tokens. Otherwise it routes: its member the query ranks
  best, not shown yet, takes its place, and the others keep their own rank, so a context after
  consolidation is never worse than before for an extractive digest.
- No fact twice: a member whose fact an insight line showed is not shown again, nor a text
  already shown (compared case- and space-insensitively).
- The current value first (issue 51): a memory an update superseded is shown only after its
  successor's line, as "earlier, until 27 May 2023: ..." (the update's `since`), and not at all when
  its successor found no room. `as_of`, `when` and `when_mode` are retrieve's.

The budget is in words, tokens or both (core/cost.py): words are whitespace-separated tokens of the
whole block, headers and ids included; tokens are a model's (cl100k_base), what the agent's prompt
pays for. A budget in words alone still bounds tokens, at `[retrieval] tokens_per_word` tokens a word
(4 by default: English prose costs about 1.3, a line's id up to 3), so one 20,000-character "word" or
a paragraph of text without spaces (Japanese, Chinese) cannot walk through a 10-word budget (issue 59).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, Field

from graphcons.core.config import Config
from graphcons.core.cost import Budget, Price, tokens
from graphcons.core.db import Database
from graphcons.core.embedders import Embedder
from graphcons.core.errors import ValidationError
from graphcons.core.eventtime import annotate
from graphcons.core.text import WORD_RE, content_terms, printable, sentences
from graphcons.core.time import day
from graphcons.recall.current import instant
from graphcons.recall.eventwindow import Window
from graphcons.recall.hits import InsightMode
from graphcons.recall.query import POOL, RecallQuery
from graphcons.recall.retrieval import retrieve
from graphcons.recall.route import carries
from graphcons.store.card import CardItem, items_of
from graphcons.store.digest import Fact, facts_of

MAX_BUDGET = 5000
MAX_TOKENS = 20000
DEFAULT_WORDS = 300
FACTS_PER_INSIGHT = 4  # the facts most relevant to the query; the insight's id leads to the rest


class ContextLine(BaseModel):
    """One line of the block, as the Python `context()` gives it: the optional fields appear only when
    they say something (`excerpt` true, `superseded_by` / `until` for a value an update superseded)."""

    # the one model of a line (issue 60): Python builds it, HTTP's schema is it, every door shows to_dict()
    model_config = ConfigDict(frozen=True)

    text: str
    ids: list[str]
    kind: str
    date: str = Field(description="The day of the line's memory (its created_at: when the event happened); "
                                  "empty for a card's or an insight's header.")
    excerpt: bool | None = Field(default=None, description="True when the line shows only the sentences of a "
                                                           "longer memory that share the query's words.")
    superseded_by: str | None = Field(default=None, description="An update's newer memory, whose line comes "
                                                                "before this one (issue 51).")
    until: str | None = Field(default=None, description="When that newer value became current (ISO-8601).")

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


@dataclass
class Context:
    text: str
    words: int
    budget_words: int | None  # None: the budget is in tokens only
    lines: list[ContextLine] = field(default_factory=list)
    tokens: int = 0  # the text's model tokens (core/cost.py)
    budget_tokens: int | None = None  # the ceiling on them: the caller's, or tokens_per_word x budget_words
    refs: dict[str, str] = field(default_factory=dict)  # "#3" -> the memory id the text cites by it
    window: Window | None = None  # the event-time window the ranking used (the question's own time, or `when`)

    @property
    def ids(self) -> list[str]:
        """Every memory id the block cites, in order of first appearance."""
        seen: dict[str, None] = {}
        for line in self.lines:
            for i in line.ids:
                seen.setdefault(i, None)
        return list(seen)

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "words": self.words, "budget_words": self.budget_words, "tokens": self.tokens,
                "budget_tokens": self.budget_tokens, "lines": [line.to_dict() for line in self.lines], "ids": self.ids,
                "refs": self.refs, **({"window": self.window.to_dict()} if self.window else {})}


def _flat(text: str) -> str:
    return printable(text)  # one line, no control sequence: a memory's text is data (issue 59)


def budget(cfg: Config, budget_words: int | None, budget_tokens: int | None) -> Budget:
    """The caller's budget checked: words, tokens or both (neither: 300 words); words alone also
    bound tokens at `tokens_per_word` a word."""
    for field_name, value, top in (("budget_words", budget_words, MAX_BUDGET), ("budget_tokens", budget_tokens, MAX_TOKENS)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 10 <= value <= top):
            raise ValidationError(field_name, f"must be an integer between 10 and {top}")
    if budget_words is None and budget_tokens is None:
        budget_words = DEFAULT_WORDS
    if budget_tokens is None:
        budget_tokens = int(budget_words * cfg.retrieval.tokens_per_word)
    return Budget(words=budget_words, tokens=budget_tokens)


def context(db: Database, cfg: Config, embedder: Embedder, q: RecallQuery, whole: Budget) -> Context:
    """The block for a checked query (its k and insight mode are context's own: the pool, ungrouped)
    within a checked budget (`budget`)."""
    # The plain ranking: every memory keeps its own place. Folding an insight's members into it, or a
    # memory's restatements into its line, lost answer words on the dev conversations (restatements
    # at cosine 0.8 still differ in detail; docs/RETRIEVAL.md): a line is one memory's own text.
    hits = retrieve(db, cfg, embedder, q.but(k=POOL, insights=InsightMode.PLAIN))
    query, namespace, subject = q.text, q.namespace, q.subject
    rank = {h.memory.id: n for n, h in enumerate(hits)}
    # an insight's typed digest came with its hit (retrieval's hydration): no round trip of its own
    digests = {h.memory.id: facts_of(json.loads(hits.nodes[h.memory.id]["insight_json"])) for h in hits
               if h.memory.kind == "insight" and hits.nodes[h.memory.id].get("insight_json") is not None}
    # the floor compares an insight's lines with what this context would show instead: its members'
    # lines where they are in the pool (a member outside it is something the insight adds)
    pooled = {h.memory.id: h.memory.content for h in hits if h.memory.kind != "insight"}
    cards = _card_items(db, query, namespace, subject) if cfg.retrieval.card_share > 0 else {}
    refs = Refs([h.memory.id for h in hits], full=cfg.retrieval.context_refs == "id")
    block = Block(whole - whole.part(cfg.retrieval.card_share if cards else 0), refs)  # the card's share waits (_put_card)
    terms = content_terms(query)
    by_id = {h.memory.id: h for h in hits}
    for h in hits:
        mem = h.memory
        if mem.id in block.shown_ids:
            continue
        if mem.kind != "insight":
            _put_memory(block, h, terms)
        elif mem.id in digests and not _put_insight(block, mem, digests[mem.id], rank, pooled, terms):
            # it routes (issue 61): its member the query ranks best, not shown yet, takes its place
            best = min((i for f in digests[mem.id] for i in f.member_ids
                        if i in pooled and i not in block.shown_ids), key=lambda i: rank[i], default=None)
            if best is not None:
                _put_memory(block, by_id[best], terms)
    if cards:
        block.budget = whole
        _put_card(block, [h.memory.id for h in hits], cards)
    return replace(block.context(whole), window=hits.window)


def _put_memory(block: "Block", h: Any, terms: set[str]) -> None:
    """A memory's line under its day, or where it is longer than what is left, its sentences that
    share the query's words, marked (issue 51); not a text already shown, nor a value an update
    superseded before its successor."""
    mem = h.memory
    text = _flat(mem.content)
    if text.casefold() in block.shown_texts or (h.superseded_by is not None and h.superseded_by not in block.shown_ids):
        return  # a value an update superseded is shown only after its successor (issue 51)
    date = day(mem.created_at)
    mark, earlier = _earlier(h.superseded_by, h.until)
    ref = block.refs(mem.id)
    if not block.put(f"{mark}{annotate(text, mem.created_at)} ({ref})", [mem.id], mem.kind, date, **earlier):
        line = f"(excerpt) {mark}{{}} ({ref})".format
        part = _excerpt(mem.content, terms, lambda p: block.fits(line(p), date), mem.created_at,
                        getattr(h, "key", None))
        if part:
            block.put(line(part), [mem.id], mem.kind, date, excerpt=True, **earlier)


class Refs:
    """How a block's text cites a memory: "#n", n its place in the context's ranking (1-based; a fact's
    member the ranking did not hold is numbered after it, in the order first cited), or with `full` its
    id. A place is known before a line is priced, so a line costs what it will cost when shown."""

    def __init__(self, ranked: list[str], *, full: bool = False):
        self.place = {mid: n for n, mid in enumerate(ranked, start=1)}
        self.full = full

    def __call__(self, mid: str) -> str:
        if self.full:
            return mid
        return f"#{self.place.setdefault(mid, len(self.place) + 1)}"

    def table(self, lines: list[ContextLine]) -> dict[str, str]:
        """Reference -> id for every memory the lines rest on that has a reference (none with `full`)."""
        if self.full:
            return {}
        return {f"#{self.place[i]}": i for line in lines for i in line.ids if i in self.place}


class Block:
    """The lines chosen so far (in rank order: what fits is decided best first), laid out under one
    header per day (issue 47: a date repeated on every line is words an agent pays for and reads
    nothing new in), the newest day first (issue 51: whatever a later memory says of a thing is read
    before what an earlier one said, whether or not an update was noticed; a value an update
    superseded is always on an earlier day than its successor). An insight's lines are a group of
    their own, placed at the day of its earliest fact. Within a day, lines keep their rank order. What
    is spent is the rendered block's, headers included (each line's newline too), so the budget always
    holds."""

    def __init__(self, budget: Budget, refs: Refs | None = None):
        self.budget = budget
        self.refs = refs or Refs([])
        self.days: dict[str, list[ContextLine]] = {}  # "7 May 2023" -> its lines
        self.insights: list[list[ContextLine]] = []
        self.card: list[ContextLine] = []  # shown first: the subject's card items (issue 47)
        self.spent = Price()
        self.shown_ids: set[str] = set()
        self.shown_texts: set[str] = set()

    def _header(self, date: str) -> Price:
        """What a line of this day pays for its header: nothing once the day is shown."""
        return Price() if date in self.days or not date else Price.of(f"{date}:", newline=True)

    def fits(self, text: str, date: str) -> bool:
        """Whether a line of this day fits in what is left (a new day's header is paid first)."""
        return self.budget.allows(self.spent + self._header(date) + Price.of(text, newline=True))

    def put(self, text: str, ids: list[str], kind: str, date: str, excerpt: bool | None = None, **earlier: str) -> bool:
        """Add a line under its day if it fits; `earlier` (superseded_by, until) marks a value an
        update superseded (the caller adds it only after its successor)."""
        price = self._header(date) + Price.of(text, newline=True)
        if not self.budget.allows(self.spent + price):
            return False
        line = ContextLine(text=text, ids=ids, kind=kind, date=date, excerpt=excerpt, **earlier)
        self.days.setdefault(date, []).append(line)
        self.spent += price
        self.shown_ids.update(ids)
        self.shown_texts.add(_flat(text).casefold())
        return True

    def put_group(self, lines: list[ContextLine]) -> None:
        """A block of its own, without a day header (an insight's line and its facts, each fact
        dated), already checked against the budget."""
        self.insights.append(lines)
        self.spent += _price(lines)
        for line in lines:
            self.shown_ids.update(line.ids)
            self.shown_texts.add(_flat(line.text).casefold())

    def context(self, budget: Budget) -> Context:
        # newest day first; an insight where its earliest fact's day falls (what it summarises began
        # then), after that day's own lines: its older facts are never read before a newer day's lines
        keyed = [((_when(d), 1, n), f"{d}:" if d else "", lines) for n, (d, lines) in enumerate(self.days.items())]
        keyed += [((min((_when(x.date) for x in lines[1:]), default=datetime.min), 0, n), "", lines)
                  for n, lines in enumerate(self.insights)]
        groups = [(header, lines) for _, header, lines in
                  sorted(keyed, key=lambda g: (g[0][0], g[0][1], -g[0][2]), reverse=True)]
        groups = [("", self.card)] + groups if self.card else groups
        rendered = [part for header, lines in groups for part in ([header] if header else []) + [x.text for x in lines]]
        lines = [line for _, group in groups for line in group]
        text = "\n".join(rendered)
        return Context(text=text, words=self.spent.words, budget_words=budget.words, lines=lines, tokens=tokens(text),
                       budget_tokens=budget.tokens, refs=self.refs.table(lines))


def _price(lines: list[ContextLine]) -> Price:
    return sum((Price.of(line.text, newline=True) for line in lines), Price())


def _card_items(db: Database, query: str, namespace: str | None, subject: str | None) -> dict[str, tuple[str, CardItem]]:
    """member id -> (subject, card item) of the approved cards of the subject the query is about."""
    words = sorted({w.casefold().removesuffix("'s") for w in WORD_RE.findall(query)})
    out: dict[str, tuple[str, CardItem]] = {}
    for row in db.run("cards/for_query", namespace=namespace, subject=subject, words=words):
        for item in items_of(json.loads(row["card"])):
            out.setdefault(item.member_id, (row["subject"], item))
    return out


def _put_card(block: Block, ranked: list[str], cards: dict[str, tuple[str, CardItem]]) -> None:
    """The card items of the pool's memories the lines did not show, most relevant first, each under
    its subject's and group's header (issue 47: the same facts in fewer words, so more of them fit),
    within what is left of the budget; shown at the top of the block."""
    left = block.budget - block.spent
    chosen: list[tuple[str, str, CardItem]] = []
    heads: set[tuple[str, str]] = set()
    for mid in ranked:
        if mid not in cards or mid in block.shown_ids:
            continue
        subject, item = cards[mid]
        # flattened: a newline in a subject or an item must not fake a day header or a line (issue 59)
        subject, item = _flat(subject), item.said(_flat)
        text = f"- {item.text} [{item.date}] ({block.refs(mid)})"
        head = Price() if (subject, item.group) in heads else Price.of(f"{subject}, {item.group}:", newline=True)
        price = head + Price.of(text, newline=True)
        if not left.allows(price):
            continue
        left -= price
        heads.add((subject, item.group))
        chosen.append((text, subject, item))
    order = sorted(range(len(chosen)), key=lambda n: (chosen[n][1], chosen[n][2].group, n))
    seen: set[tuple[str, str]] = set()
    for n in order:
        text, subject, item = chosen[n]
        if (subject, item.group) not in seen:
            seen.add((subject, item.group))
            block.card.append(ContextLine(text=f"{subject}, {item.group}:", ids=[], kind="card", date=""))
        block.card.append(ContextLine(text=text, ids=[item.member_id], kind="card", date=item.date))
    block.spent += _price(block.card)
    for line in block.card:
        block.shown_ids.update(line.ids)


def _when(day_text: str) -> datetime:
    """A line's day ("7 May 2023", core.time.day's form) as a sort key; undated lines last."""
    return datetime.strptime(day_text, "%d %B %Y") if day_text else datetime.min


def _put_insight(block: Block, mem: Any, digest: list[Fact], rank: dict[str, int], pooled: dict[str, str],
                 terms: set[str]) -> bool:
    """An insight's header and its facts most relevant to the query, only where they pass the floor
    (issue 61, recall/route.py): they state the query-relevant content of the members' lines they
    displace, in fewer tokens. Whether it was shown (otherwise the caller routes to its members)."""
    facts = [f for f in digest if not set(f.member_ids) <= block.shown_ids]
    facts.sort(key=lambda f: min((rank.get(i, POOL) for i in f.member_ids), default=POOL))
    facts = facts[:FACTS_PER_INSIGHT]
    header = f"Insight {block.refs(mem.id)} ({mem.epistemic_status or 'hypothesis'}):"
    lines = [ContextLine(text=_fact_text(f, block.refs), ids=[i for i in f.member_ids if i not in block.shown_ids],
                         kind="fact", date=f.when or "") for f in facts]
    if not lines or not _carries(header, lines, facts, pooled, terms, block.refs):
        return False
    fitted: list[ContextLine] = []
    used = Price.of(header, newline=True)
    for line in lines:
        price = Price.of(line.text, newline=True)
        if block.budget.allows(block.spent + used + price):
            fitted.append(line)
            used += price
    if fitted:
        block.put_group([ContextLine(text=header, ids=[mem.id], kind="insight", date=""), *fitted])
    return bool(fitted)


def _carries(header: str, lines: list[ContextLine], facts: list[Fact], pooled: dict[str, str],
             terms: set[str], refs: Refs) -> bool:
    """The floor (issue 61): the facts state the query-relevant content of the pooled members they
    cite, and the insight's lines (header, dates and ids included) cost fewer tokens than those
    members' own lines. Before (issue 47) a fact passed by citing a member outside the pool or by
    fewer words, which let a short sentence of a long turn stand for the turn that held the answer."""
    cited = sorted({i for line in lines for i in line.ids if i in pooled})
    mine = sum(tokens(x) for x in [header, *(line.text for line in lines)])
    theirs = sum(tokens(f"{_flat(pooled[i])} ({refs(i)})") for i in cited)
    return carries([f.statement for f in facts], [pooled[i] for i in cited], terms, cost=(mine, theirs))


def _earlier(superseded_by: str | None, until: str | None) -> tuple[str, dict[str, str]]:
    """How a line says its value was superseded: "earlier, until 27 May 2023: " and the line's fields."""
    if superseded_by is None:
        return "", {}
    ended = instant(until)
    return f"earlier, until {day(ended) if ended else until}: ", {"superseded_by": superseded_by, "until": until or ""}


# An excerpt shows at most this many sentences of its memory (issue 61): one that filled all that was left
# with every sentence sharing a query word (a long assistant turn shares many) took the room of the memories
# ranked after it, which held the answer as often (LongMemEval dev knowledge-update, before any
# consolidation: answer words @300 0.643 with the room filled, 0.701 with two sentences; docs/RETRIEVAL.md)
EXCERPT_SENTENCES = 2


def _excerpt(content: str, terms: set[str], fits: Callable[[str], bool], said: datetime, key: str | None = None) -> str:
    """The (at most EXCERPT_SENTENCES) sentences of a long memory that share the most query words, in their
    own order, joined by " … ", as `fits` allows (most shared words first); "" when none shares a word or
    none fits. The retrieval key that found the memory (issue 61) comes first, whatever words it shares."""
    said_parts = sentences(content)
    parts = [annotate(_flat(s), said) for s in said_parts]
    shared = [len(terms) + 1 if s == key else len(terms & content_terms(p)) for s, p in zip(said_parts, parts)]
    keep: list[int] = []
    for i in sorted(range(len(parts)), key=lambda i: (-shared[i], i)):
        if len(keep) < EXCERPT_SENTENCES and shared[i] and fits(" … ".join(parts[j] for j in sorted([*keep, i]))):
            keep.append(i)
    return " … ".join(parts[i] for i in sorted(keep))


def _fact_text(fact: Fact, refs: Refs) -> str:
    statement = _flat(fact.statement)
    ref = refs(fact.member_ids[0])
    if not fact.when:
        return f"- {statement} ({ref})"
    said = datetime.strptime(fact.when, "%d %B %Y")  # core.time.day's form: the day its member was said
    return f"- [{fact.when}] {annotate(statement, said)} ({ref})"
