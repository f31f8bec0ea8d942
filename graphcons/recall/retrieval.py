"""Retrieval: the memories that answer a query, within a scope, in a reproducible order.

Modes (config `retrieval.mode`, or `mode=`; `hits.Mode`): hybrid (default), vector, keyword; the
lists are read in `lists`, fused and ordered in `rank`. Candidate pool: each list contributes its
top max(hybrid_pool, k), so for every k up to `hybrid_pool` the top k is the prefix of the top
k + n (no score depends on k).

Insights (`retrieval.insights`; `hits.InsightMode`): "digest" (default, issues 39 and 61): an
insight ranks by its own score and routes: its member closest to the query, not shown yet, takes
its place (`via`), unless its text carries its members' query-relevant content in fewer tokens
(`route`); then it is one of k and carries every member it cites as `members`, most relevant to
the query first, not shown again. "group"
lists, under each insight hit, up to `members_per_insight` of the members it SUMMARIZES, each
counted in k. In both, a member hit shows the insights that summarise it. "plain" turns this off.
An insight whose epistemic_status is "unsupported" ranks below every other hit.

Deprecated memories are never returned themselves: a hit on one lands on the memory that
SUPERSEDES it (with `as_of`, one merged away or retired after it is returned as it was: `current`). An update (SUPERSEDES {reason: 'update'}, issue 51) leaves the older memory live: it
is a hit of its own, shown after its successor and marked (`current`); `as_of` answers with what
was current then (`current`), `when` ranks or restricts by the query's event time (`eventwindow`).
Using results records co-access (record=True, not in `search_text`).
"""

from __future__ import annotations

import json
import logging
import uuid
from dataclasses import replace
from datetime import datetime
from typing import Any

import pydantic_core

from graphcons.core import cost
from graphcons.core.config import Config
from graphcons.core.db import Database, Rows
from graphcons.core.embedders import Embedder
from graphcons.core.epistemics import UNSUPPORTED
from graphcons.core.errors import ServerUnavailable
from graphcons.core.memory import LIVE_STATUSES, Memory
from graphcons.core.time import memory_fields, native
from graphcons.core.text import content_terms
from graphcons.recall import current, eventwindow, lists, route
from graphcons.recall.hits import Candidate, Head, Hit, Hits, InsightMode, Member, Mode
from graphcons.recall.query import MAX_K, RecallQuery
from graphcons.recall.rank import ranked
from graphcons.store.coaccess import record_access

log = logging.getLogger("graphcons.retrieval")

WIDEST_POOL = 16 * MAX_K  # as_of / when: the pool stops widening here
WARM_NAMESPACE = "graphcons-warm-up"  # no memory lives there: the warm-up reads nothing


def warm(db: Database, cfg: Config, embedder: Embedder) -> None:
    """Make the first real call as fast as the next (issue 52): the embedder loaded and run once,
    the driver's connections open (the two lists are read at once), every statement of a default
    retrieve and context run once with its parameters' types (the server plans each once; this
    process asks once whether it only reads), on a namespace that holds nothing."""
    embedding = embedder.embed_one("warm-up")
    cost.tokens("warm-up")  # a context prices its lines in tokens: the encoding loads once, here (~110 ms)
    retrieve(db, cfg, embedder, RecallQuery.of(cfg.retrieval, "warm-up", 1, namespace=WARM_NAMESPACE, record=False))
    lists.spread(db, cfg, [], embedding, 1, WARM_NAMESPACE, None, ids=[], communities=True, digest=True)
    db.run("retrieval/embeddings", Rows.PLAIN, ids=[])
    db.run("retrieval/hydrate", Rows.PLAIN, order=[], k=1, digest=True, per_insight=1, summarised=True,
           live=LIVE_STATUSES, embedding=embedding)


def retrieve(db: Database, cfg: Config, embedder: Embedder, q: RecallQuery) -> Hits:
    """Ranked `Hit`s (members / insights when grouped) for a checked query (`query.RecallQuery`). A
    memory an update superseded comes after its successor, marked (`current`); `as_of` answers with
    what was current then (`current`); a `when` window ranks or restricts by event time (`eventwindow`).

    The search reads in read transactions; recording the use is a separate write, retried on
    deadlocks. A recording that still fails does not cost the caller its hits: they come back
    with `recording` saying it was skipped."""
    rc = cfg.retrieval
    query, k, namespace, subject, insights, as_of = q.text, q.k, q.namespace, q.subject, q.insights, q.as_of
    window, record, session = q.window, q.record, q.session
    embedding = embedder.embed_one(query) if q.mode != Mode.KEYWORD else None
    order = _ranked(db, cfg, query, embedding, k, namespace, subject, q.mode, insights, as_of, window, q.diverse)
    newer: dict[str, list[dict[str, Any]]] = {}
    if insights == InsightMode.PLAIN:
        hits, nodes = _hydrate(db, order[:k], newer=newer)  # the walk of an ungrouped result: its first k
    else:
        hits, nodes = _grouped(db, order, k, embedding, rc.members_per_insight, digest=insights == InsightMode.DIGEST,
                               newer=newer, terms=content_terms(query))
    if any(newer.values()):  # an update superseded a hit: the current value first (issue 51)
        hits = current.first(hits, newer, k, namespace=namespace, subject=subject, as_of=as_of, window=window,
                             bring=lambda ids: _bring(db, ids, insights != InsightMode.PLAIN, nodes),
                             members_count=insights == InsightMode.GROUP)
    out = Hits(_annotate(hits, nodes))  # epistemic status and scoped exceptions travel with each insight
    recording = "off"
    if record and out:
        # the answer serialises before its use is recorded (issue 59): a stored value no reader can
        # serialise (metadata nested 900 deep, from before the door bounded it) fails the call here,
        # not after it counted an access
        pydantic_core.to_json([h.to_dict() for h in out])
        try:
            record_access(db, cfg, session or f"retrieve-{uuid.uuid4().hex[:12]}", shown_ids(hits), read=True)
            recording = "recorded"
        except ServerUnavailable as exc:  # deadlocked past every retry, or Neo4j lost mid-call
            log.warning("retrieve: co-access recording skipped: %s", exc)
            recording = f"skipped: {exc.public}"
    out.recording, out.nodes, out.window = recording, nodes, window
    return out


def search_text(db: Database, q: RecallQuery) -> list[Hit]:
    """Plain keyword search (a query of mode keyword); records nothing."""
    hits, nodes = _hydrate(db, lists.keyword(db, q.text, q.k, q.namespace, q.subject))
    return _annotate([Hit(h.memory, h.keyword, keyword=h.keyword) for h in hits], nodes)


def _grouped(db: Database, order: list[Candidate], k: int, embedding: list[float] | None, per_insight: int, *,
             digest: bool, newer: dict[str, list[dict[str, Any]]], terms: set[str]
             ) -> tuple[list[Hit], dict[str, dict[str, Any]]]:
    """Walk the ranking (in cypher/retrieval/hydrate, with the hydration: one round trip). "group":
    each memory shown (insight, nested member or plain hit) takes one of k; an insight nests up to
    `per_insight` of the members it SUMMARIZES, most relevant first. "digest" (issue 61): a carrier
    routes, its member closest to the query not shown yet taking its place (`via`), unless its text
    carries the query-relevant content of its members in fewer tokens (recall/route.py): then it
    takes one of k and carries every member it cites as its provenance, most relevant first, and a
    member it carries is not shown again (a second walk, only then). In both, a member hit shows the
    insights that summarise it (`insights`)."""
    # "digest": every derived memory carries what it cites: an insight, and an approved profile's
    # statements (issue 39: profiles are recall), whatever their kind (`derived`: read by
    # rank.derived in the hybrid ranking; unknown in the others, so asked).
    carrier = [h.memory.kind == "insight" or (digest and h.derived is not False) for h in order]

    def walk(kept: set[str]) -> list[list[Any]]:
        return [[h.id, c, h.memory.kind == "insight", digest and c and h.id not in kept] for h, c in zip(order, carrier)]

    judged: list[list[Any]] = []
    hits, nodes = _hydrate(db, order, walk(set()), k, summarised=True, newer=newer, embedding=embedding,
                           digest=digest, per_insight=per_insight, judged=judged)
    kept = {i for i, text, members in judged if route.carries([text], members, terms)}
    if not kept:
        return hits, nodes
    newer.clear()
    return _hydrate(db, order, walk(kept), k, summarised=True, newer=newer, embedding=embedding, digest=digest,
                    per_insight=per_insight)


def _ranked(db: Database, cfg: Config, query: str, embedding: list[float] | None, k: int, namespace: str | None,
            subject: str | None, mode: Mode, insights: InsightMode, as_of: datetime | None,
            window: eventwindow.Window | None, diverse: bool = True) -> list[Candidate]:
    """The ranking; with `as_of` or a `when` window, of what was visible then / falls in the window,
    the pool widening until k remain (or the lists ran dry)."""
    pool = max(cfg.retrieval.hybrid_pool, k)  # independent of k up to hybrid_pool: top k is a prefix of top k + n
    while True:
        order = ranked(db, cfg, query, embedding, pool, namespace, subject, mode,
                       digest=insights == InsightMode.DIGEST, as_of=as_of, diverse=diverse)
        if as_of is None and window is None:
            return order
        known = current.times(db, [h.id for h in order])
        kept = eventwindow.apply(current.visible_at(order, known, as_of), known, window)
        if len(kept) >= k or len(order) < pool or pool >= WIDEST_POOL:
            return kept
        pool *= 4


def _bring(db: Database, ids: list[str], summarised: bool, nodes: dict[str, dict[str, Any]]
           ) -> tuple[list[Hit], dict[str, list[dict[str, Any]]]]:
    """Successors the ranking did not reach, read in full (and what superseded them in turn); their
    stored properties join `nodes`."""
    newer: dict[str, list[dict[str, Any]]] = {}
    hits, more = _hydrate(db, [Candidate(Head(i)) for i in ids], summarised=summarised, newer=newer)
    nodes.update(more)
    return hits, newer


def _hydrate(db: Database, hits: list[Candidate], walk: list[list[Any]] | None = None, k: int | None = None, *,
             summarised: bool = False, newer: dict[str, list[dict[str, Any]]] | None = None,
             embedding: list[float] | None = None, digest: bool = False, per_insight: int = 0,
             judged: list[list[Any]] | None = None) -> tuple[list[Hit], dict[str, dict[str, Any]]]:
    """The hits shown as `Hit`s with their memories read in full, in one query
    (cypher/retrieval/hydrate): ungrouped, the first `k` of `hits` (all by default); grouped, what the
    `walk` ([id, carrier, insight, routes] per hit) shows, with each carrier's members; a routing
    carrier's place goes to its best member (`via`), and its text with its members' fills `judged`.
    With `summarised` (grouped rankings) also the live insights that summarise each plain hit and
    member (`insights`);
    `newer` is filled with the live memories that superseded each by an update
    (graphcons.recall.current); an insight hit gets its `source_episodes`. Also each memory's stored
    properties as read (an insight's epistemic scopes and typed digest: `_annotate` and context need
    no query)."""
    if not hits:
        return [], {}
    walk = walk if walk is not None else [[h.id, False, False, False] for h in hits]
    r = db.run("retrieval/hydrate", Rows.PLAIN, order=walk, k=len(hits) if k is None else k, digest=digest,
               per_insight=per_insight, summarised=summarised, live=LIVE_STATUSES,
               embedding=embedding if any(w[1] for w in walk) else None)[0]
    rows = {}
    for fields, instants, insights, updated, episodes in r["memories"]:
        memory = memory_fields(fields, instants)
        rows[memory["id"]] = {"memory": memory, "insights": insights, "newer": native(updated), "episodes": episodes}
    if newer is not None:
        newer.update({i: row["newer"] for i, row in rows.items() if row["newer"]})
    full = {i: Memory.from_node(row["memory"]) for i, row in rows.items()}

    def insights_of(mid: str) -> list[dict[str, Any]] | None:
        return rows[mid]["insights"] if summarised else None

    if judged is not None:
        judged.extend(r["judged"])
    by_id = {h.id: h for h in hits}
    out = []
    for hid, nested, via in r["shown"]:
        # a member routed to a carrier's place: its own scores when it is a candidate, else the carrier's score
        h, mem = by_id.get(hid) or Candidate(Head(hid), score=by_id[via].score), full[hid]
        members = None if nested is None else [Member(full[mid], relevance, insights_of(mid))
                                               for mid, relevance in nested]
        out.append(Hit(mem, h.score, superseded=h.superseded, vector=h.vector, keyword=h.keyword, graph=h.graph,
                       community=h.community, derived=h.derived, members=members,
                       insights=insights_of(hid) if mem.kind != "insight" else None, via=via,
                       source_episodes=rows[hid]["episodes"] if mem.kind == "insight" else None, key=h.key))
    return out, {i: row["memory"] for i, row in rows.items()}


def _annotate(hits: list[Hit], nodes: dict[str, dict[str, Any]]) -> list[Hit]:
    """Retrieval's epistemic fields, in one place: each insight hit gets its `epistemic_status`
    and scoped `exceptions` (its stored properties, as hydration read them); unsupported insights
    move below everything else (stable order)."""
    found = {h.memory.id: nodes[h.memory.id] for h in hits
             if h.memory.kind == "insight" and nodes[h.memory.id].get("epistemic_status") is not None}
    if not found:
        return hits
    out = [h if h.memory.id not in found else
           replace(h, epistemic_status=found[h.memory.id]["epistemic_status"],
                   exceptions=json.loads(scopes) if (scopes := found[h.memory.id].get("epistemic_scopes")) else [])
           for h in hits]
    return sorted(out, key=lambda h: h.epistemic_status == UNSUPPORTED)


def shown_ids(hits: list[Hit]) -> list[str]:
    """Every memory a result shows: the hits, then the members nested under insight hits."""
    return [h.memory.id for h in hits] + [m.memory.id for h in hits for m in h.members or []]
