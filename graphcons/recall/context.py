"""A context an agent can paste (issue 39): `context(query, budget_words)` is the text block an
agent puts into its prompt, built from `retrieve`'s ranking.

- Best hits first (the plain ranking: each memory in its own place), packed until the word
  budget; the block is never over the budget. A memory longer than what is left shows its
  sentences that share the query's words, in their order, as an excerpt marked "(excerpt)" with
  its date and id (issue 51: a 350-word chat turn could never enter a 300-word context); one that
  shares none is skipped (a shorter one after it may still fit).
- Every line carries its date (the memory's `created_at`, which a caller sets to when the event
  happened) and its id, so an agent can cite it (`lines[].ids` lists every memory a line rests on).
  A relative time expression is followed by the day it names, resolved against that date
  ("ran a race last Saturday [20 May 2023]"; core/eventtime, issue 47): what no ranking can add.
- An insight is shown as its id and the facts of its digest most relevant to the query (those
  whose members rank best), each with its date and its first member's id.
- No fact twice: a member whose fact an insight line showed is not shown again, nor a text
  already shown (compared case- and space-insensitively).

Words are whitespace-separated tokens of the whole block, header and ids included: what the
agent's prompt pays for.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graphcons.core.config import Config
from graphcons.core.db import Database
from graphcons.core.embedders import Embedder
from graphcons.core.errors import ValidationError
from graphcons.core.eventtime import annotate
from graphcons.core.text import content_terms, sentences
from graphcons.core.time import day
from graphcons.recall.hits import InsightMode
from graphcons.recall.retrieval import retrieve

MAX_BUDGET = 5000
POOL = 40  # hits read to fill a budget: more than any 300-word context holds
FACTS_PER_INSIGHT = 4  # the facts most relevant to the query; the insight's id leads to the rest


@dataclass
class Context:
    text: str
    words: int
    budget_words: int
    lines: list[dict[str, Any]] = field(default_factory=list)  # {"text", "ids", "kind", "date"}

    @property
    def ids(self) -> list[str]:
        """Every memory id the block cites, in order of first appearance."""
        seen: dict[str, None] = {}
        for line in self.lines:
            for i in line["ids"]:
                seen.setdefault(i, None)
        return list(seen)

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "words": self.words, "budget_words": self.budget_words, "lines": self.lines,
                "ids": self.ids}


def _flat(text: str) -> str:
    return " ".join(text.split())


def context(db: Database, cfg: Config, embedder: Embedder, query: str, budget_words: int = 300, *,
            namespace: str | None = None, subject: str | None = None, mode: str | None = None,
            record: bool = True, session: str | None = None) -> Context:
    if isinstance(budget_words, bool) or not isinstance(budget_words, int) or not 10 <= budget_words <= MAX_BUDGET:
        raise ValidationError("budget_words", f"must be an integer between 10 and {MAX_BUDGET}")
    # The plain ranking: every memory keeps its own place. Folding an insight's members into it, or a
    # memory's restatements into its line, lost answer words on the dev conversations (restatements
    # at cosine 0.8 still differ in detail; docs/RETRIEVAL.md): a line is one memory's own text.
    hits = retrieve(db, cfg, embedder, query, k=POOL, namespace=namespace, subject=subject, mode=mode,
                    insights=InsightMode.PLAIN, record=record, session=session)
    rank = {h.memory.id: n for n, h in enumerate(hits)}
    # an insight's typed digest came with its hit (retrieval's hydration): no round trip of its own
    digests = {h.memory.id: json.loads(hits.nodes[h.memory.id]["insight_json"]) for h in hits
               if h.memory.kind == "insight" and hits.nodes[h.memory.id].get("insight_json") is not None}
    lines: list[dict[str, Any]] = []
    words = 0
    terms = content_terms(query)
    shown_ids: set[str] = set()
    shown_texts: set[str] = set()

    def put(text: str, ids: list[str], kind: str, date: str, excerpt: bool = False) -> bool:
        nonlocal words
        n = len(text.split())
        if words + n > budget_words:
            return False
        lines.append({"text": text, "ids": ids, "kind": kind, "date": date, **({"excerpt": True} if excerpt else {})})
        words += n
        shown_ids.update(ids)
        shown_texts.add(_flat(text).casefold())
        return True

    for h in hits:
        mem = h.memory
        if mem.id in shown_ids:
            continue
        if mem.kind == "insight":
            if mem.id not in digests:
                continue
            facts = [f for f in digests[mem.id].get("facts", []) if not set(f.get("member_ids", [])) <= shown_ids]
            facts.sort(key=lambda f: min((rank.get(i, POOL) for i in f.get("member_ids", [])), default=POOL))
            facts = facts[:FACTS_PER_INSIGHT]
            header = f"Insight {mem.id} ({mem.epistemic_status or 'hypothesis'}):"
            if not facts or words + len(header.split()) + len(_fact_text(facts[0]).split()) > budget_words:
                continue
            put(header, [mem.id], "insight", "")
            for f in facts:
                put(_fact_text(f), [i for i in f.get("member_ids", []) if i not in shown_ids], "fact",
                    f.get("when") or "")
            continue
        text = _flat(mem.content)
        if text.casefold() in shown_texts:
            continue
        date = day(mem.created_at)
        if not put(f"[{date}] {annotate(text, mem.created_at)} ({mem.id})", [mem.id], mem.kind, date):
            # longer than what is left: its sentences that share the query's words, marked (issue 51)
            room = budget_words - words - len(f"[{date}] (excerpt) ({mem.id})".split())
            part = _excerpt(mem.content, terms, room, mem.created_at)
            if part:
                put(f"[{date}] (excerpt) {part} ({mem.id})", [mem.id], mem.kind, date, excerpt=True)
    return Context(text="\n".join(line["text"] for line in lines), words=words, budget_words=budget_words,
                   lines=lines)


def _excerpt(content: str, terms: set[str], room: int, said: datetime) -> str:
    """The sentences of a long memory that share the most query words, in their own order, joined
    by " … ", within `room` words (each " … " is one); "" when none shares a word or none fits."""
    parts = [annotate(_flat(s), said) for s in sentences(content)]
    shared = [len(terms & content_terms(p)) for p in parts]
    keep: list[int] = []
    used = 0
    for i in sorted(range(len(parts)), key=lambda i: (-shared[i], i)):
        n = len(parts[i].split()) + (1 if keep else 0)
        if shared[i] and used + n <= room:
            keep.append(i)
            used += n
    return " … ".join(parts[i] for i in sorted(keep))


def _fact_text(fact: dict[str, Any]) -> str:
    statement = _flat(fact.get("statement", ""))
    if not fact.get("when"):
        return f"- {statement} ({fact['member_ids'][0]})"
    said = datetime.strptime(fact["when"], "%d %B %Y")  # core.time.day's form: the day its member was said
    return f"- [{fact['when']}] {annotate(statement, said)} ({fact['member_ids'][0]})"
