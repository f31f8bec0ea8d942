"""The candidate lists a query reads: vector (cosine to the query embedding), keyword (BM25 over
title and content; the user's text is escaped, so any string is a valid query) and the graph step
(the best fused hits spread one step along the stored graph, or personalised PageRank).

Scope: namespace and/or subject filter the candidates BEFORE the top-k is taken. Scopes of up to
`retrieval.exact_scope_max` memories are scanned exactly; larger ones read the vector index with a
pool that widens until k in-scope results are found (or the pool is the whole store), so a scope
holding k live memories always returns k.

Each statement here returns ids, numbers, strings and lists or maps of them, read as the driver
decoded them (`Rows.PLAIN`): walking Record.data() over a graph step's groups and members cost
~5 ms of Python a call after consolidation at 10k memories (issue 52).
"""

from __future__ import annotations

import uuid
import weakref
from datetime import datetime
from typing import Any

from neo4j.exceptions import ClientError

from graphcons.core.config import Config
from graphcons.core.db import Database, Rows
from graphcons.core.memory import LIVE_STATUSES, Status
from graphcons.recall.hits import Candidate, Head
from graphcons.store import schema
from graphcons.store.neighbours import UNLIMITED

LUCENE_SPECIAL = set('\\+-!():^[]"{}~*?|&/')
LUCENE_OPERATORS = {"AND", "OR", "NOT", "TO"}
MAX_QUERY_TERMS = 500  # Lucene refuses more than 1024 clauses: each term is asked of title and content


def lucene_escape(text: str) -> str:
    """User text as a Lucene query of plain terms: metacharacters escaped, operator words
    lower-cased (the analyzer lower-cases anyway), at most MAX_QUERY_TERMS terms."""
    words = []
    for word in text.split()[:MAX_QUERY_TERMS]:
        if word in LUCENE_OPERATORS:
            word = word.lower()
        words.append("".join("\\" + c if c in LUCENE_SPECIAL else c for c in word))
    return " ".join(words)


def _has_term(text: str) -> bool:
    """Whether the analyzer keeps any term of the text (it drops pure punctuation)."""
    return any(c.isalnum() for c in text)


def keyword_query(escaped: str, namespace: str | None, subject: str | None) -> str:
    """The Lucene query for escaped user text within a scope: the text matched in title and content
    only (never in a namespace or subject), and the scope as required phrase clauses boosted to 0,
    so the index returns only the scope's matches and every score is the text's BM25 alone. A
    phrase is a superset of the exact value (the analyzer splits "user-ana"); the Cypher filter is
    exact. Before, a subject scope got the best matches store-wide and widened until its own were
    among them (keyword p95 558 ms at 100k, issue 28)."""
    query = f"+(title:({escaped}) content:({escaped}))"
    for field, value in (("namespace", namespace), ("subject", subject)):
        if value is not None and _has_term(value):  # a phrase of no term cannot filter; the Cypher filter does
            phrase = value.replace("\\", "\\\\").replace('"', '\\"')
            query += f' +{field}:"{phrase}"^0'
    return query


EVERY_STATUS = tuple(s.value for s in Status)


def statuses(as_of: datetime | None) -> tuple[str, ...]:
    """The statuses a list reads: the live ones; with `as_of` every one (issue 62: a memory merged
    away or retired since was visible then; graphcons.recall.current keeps what was, by its times)."""
    return LIVE_STATUSES if as_of is None else EVERY_STATUS


# Scopes seen larger than exact_scope_max (namespace, subject, exact_scope_max), by database (a
# scope never shrinks: nothing is deleted), with the store's size then: the vector statement then
# skips counting them (~7 ms at 100k, issue 52). A smaller store since (a wipe) forgets them.
_LARGE: "weakref.WeakKeyDictionary[Database, dict[tuple[str | None, str | None, int], int]]" = \
    weakref.WeakKeyDictionary()


def vector(db: Database, cfg: Config, embedding: list[float], k: int, namespace: str | None,
           subject: str | None, as_of: datetime | None = None) -> list[Candidate]:
    """The scope's k nearest live memories (cypher/retrieval/vector.cypher): one round trip, unless
    a large scope holds fewer than k among the index's first candidates (the pool widens). With
    `as_of`, every memory, a hit landing on what SUPERSEDES it only by a merge applied by then."""
    scope = dict(namespace=namespace, subject=subject, live=statuses(as_of), as_of=as_of, embedding=embedding, k=k)
    known = _LARGE.setdefault(db, {})
    key = (namespace, subject, cfg.retrieval.exact_scope_max)
    large = key in known
    # 2k: headroom for the approximate index and a scope's share of it; the widening covers the
    # rest. At 100k the index answers 400 candidates in ~41 ms, 200 in ~28 ms (issue 28).
    pool = max(cfg.retrieval.index_pool, 2 * k)
    store = known.get(key, pool)
    try:
        while True:
            r = db.run("retrieval/vector", Rows.PLAIN, exact_max=cfg.retrieval.exact_scope_max, large=large,
                       keys=cfg.retrieval.keys, key_discount=cfg.retrieval.key_discount,
                       index_min=cfg.retrieval.index_scope_min, index_share=cfg.retrieval.index_scope_share,
                       candidates=min(pool, max(store, 1)), **scope)[0]
            store = r["store"]
            if large and store < known[key]:  # the store was wiped since: count again
                known.clear()
                large = False
                continue
            if r["indexed"] and r["size"] > cfg.retrieval.exact_scope_max:  # large for good: a dominant one may not stay so
                known[key] = store
            rows = r["hits"]
            if not r["indexed"] or len(rows) >= k or pool >= store:
                break
            pool *= 4
    except ClientError as exc:  # being rebuilt: the whole scope, exactly (slower, never failing)
        if exc.code not in schema.INDEX_NOT_ONLINE:
            raise
        rows = db.run("retrieval/vector", Rows.PLAIN, exact_max=UNLIMITED, large=False, candidates=0,
                      keys=cfg.retrieval.keys, key_discount=cfg.retrieval.key_discount,
                      index_min=UNLIMITED, index_share=1.0, **scope)[0]["hits"]
    return [Candidate(Head.of(r["memory"]), vector=r["cosine"], superseded=list(r["superseded"]), key=r["key"])
            for r in rows]


def keyword(db: Database, text: str, k: int, namespace: str | None, subject: str | None, *,
            pool: int = 100, as_of: datetime | None = None) -> list[Candidate]:
    escaped = lucene_escape(text)
    if not _has_term(escaped):  # nothing can match
        return []
    # The index gives its best `candidates` matches in the scope's phrase clauses; widen until no
    # unseen match can enter the scope's top k (cypher/retrieval/fulltext.cypher), so the list is exact.
    lucene = keyword_query(escaped, namespace, subject)
    candidates = max(pool, 2 * k)  # enough that the k-th score is usually above the floor at once
    while True:
        r = db.run("retrieval/fulltext", Rows.PLAIN, text=lucene, k=k, candidates=candidates, namespace=namespace,
                   subject=subject, live=statuses(as_of))[0]
        rows = r["hits"]
        if r["returned"] < candidates or (len(rows) >= k and rows[k - 1]["score"] > r["floor"]):
            break
        candidates *= 4
    return [Candidate(Head.of(h["memory"]), keyword=h["score"]) for h in rows]


def spread(db: Database, cfg: Config, seeds: list[dict[str, Any]], embedding: list[float] | None, pool: int,
           namespace: str | None, subject: str | None, *, ids: list[str], communities: bool = False,
           digest: bool = False, as_of: datetime | None = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Graph-aware recall: the seeds spread one step through the stored graph (SIMILAR, LINKED,
    CO_ACCESSED, SUMMARIZES and an insight's other members, within the scope). One Cypher
    statement, bounded by the seeds' degrees (no projection per query: docs/RETRIEVAL.md), which
    also reads what ranking needs of the candidates (`ids` and the rows): their groups
    (communities, citing insights). Returns the rows (graph score under "spread", scale 1) and
    {"groups"}; what each carrier cites is read with the shown memories (cypher/retrieval/hydrate)."""
    rc, cc = cfg.retrieval, cfg.consolidation
    r = db.run("retrieval/spread", Rows.PLAIN, seeds=seeds, kinds=dict(rc.graph_kinds),
               link_kinds=dict(cc.link_kind_weights),
               coaccess_k=float(cc.coaccess_k), sim_floor=float(cfg.similarity_floor), live=statuses(as_of),
               as_of=as_of, namespace=namespace, subject=subject, embedding=embedding, limit=pool, ids=ids,
               communities=communities, digest=digest)[0]
    heads = {i: {"id": i, "kind": kind, "epistemic_status": status} for i, kind, status in r["heads"]}
    groups = [{"id": i, "kind": kind, "community": community, "size": size, "citing": [heads[c] for c in citing],
               "derived": derived} for i, kind, community, size, citing, derived in r["groups"]]
    return r["rows"], {"groups": groups}


def ppr(db: Database, cfg: Config, seeds: list[dict[str, Any]], embedding: list[float] | None, pool: int,
        namespace: str | None, subject: str | None) -> tuple[list[dict[str, Any]], str, float]:
    """Graph-aware recall by personalised PageRank (HippoRAG): the scope's live memories and the
    edges consolidation maintains projected for this query, PageRank teleporting to the seeds,
    then dropped. The scale is one full step from a weight-1 seed."""
    rc, cc = cfg.retrieval, cfg.consolidation
    # 1 = what a seed of weight 1 gives a neighbour that is its only edge after one step of the walk
    # (teleport 1 - d, then d along the edge): the scale of the spread step's strongest path.
    scale = rc.ppr_damping * (1 - rc.ppr_damping)
    name = f"graphcons-ppr-{uuid.uuid4().hex[:12]}"
    row = db.run("retrieval/ppr_project", graph_name=name, kinds=dict(rc.graph_kinds),
                 link_kinds=dict(cc.link_kind_weights), coaccess_k=float(cc.coaccess_k),
                 sim_floor=float(cfg.similarity_floor), live=LIVE_STATUSES, namespace=namespace, subject=subject)[0]
    if row["graph"] is None:  # an empty scope: nothing projected
        return [], "rank", scale
    try:
        if not row["relationships"]:  # no edge to walk: the ranks would be the seeds' own
            return [], "rank", scale
        rows = db.run("retrieval/ppr_stream", graph_name=name, seeds=seeds, damping=float(rc.ppr_damping),
                      embedding=embedding, limit=pool)
    finally:
        db.run("clusters/drop_graph", graph_name=name)
    return rows, "rank", scale
