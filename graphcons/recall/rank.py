"""Ranking: how the candidate lists become one order.

- hybrid (default): both lists, each scaled by the query's best score of that list, summed
  (cosine / best + keyword_weight * bm25 / best), then graph-aware: the top `graph_seeds` fused
  hits spread one step along the stored graph and each memory gains `graph_weight` x the spread
  it received (docs/RETRIEVAL.md says why and how much it helps). A memory reached only through
  the graph is scored by its own cosine too.
- Community prior (`retrieval.community_weight`, hybrid, 0.1): a candidate gains the mean score
  of its stored community's other members among the candidates (`community`).
- Digest (`retrieval.insights = "digest"`): an insight ranks by its own score (issue 61; issue 39
  lifted it to its best cited candidate), and retrieval's walk routes it to its members.
- Unsupported insights rank below every other hit; then score, then id (deterministic); then
  maximal marginal relevance (`diversify`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import numpy as np

from graphcons.core.config import Config
from graphcons.core.db import Database, Rows, alongside
from graphcons.core.vectors import cosines
from graphcons.recall import lists
from graphcons.recall.hits import Candidate, Head, Mode

def ranked(db: Database, cfg: Config, query: str, embedding: list[float] | None, pool: int,
           namespace: str | None, subject: str | None, mode: Mode, *, digest: bool = False,
           as_of: datetime | None = None, diverse: bool = True) -> list[Candidate]:
    """Every candidate of the pool, best first (`as_of`: the lists read what may have been visible
    then, `lists.statuses`; `diverse=False`: no maximal-marginal-relevance step, a page as scored)."""
    def vector() -> list[Candidate]:
        return lists.vector(db, cfg, embedding, pool, namespace, subject, as_of) if mode != Mode.KEYWORD else []

    def keyword() -> list[Candidate]:
        return lists.keyword(db, query, pool, namespace, subject, pool=cfg.retrieval.index_pool, as_of=as_of) \
            if mode != Mode.VECTOR else []

    # Independent lists: in hybrid mode read at once (at 100k memories ~25 ms off the p50, issue 39).
    kw, vec = alongside(keyword, vector) if mode == Mode.HYBRID else (keyword(), vector())
    if mode == Mode.VECTOR:
        hits = [_scored(h, h.vector) for h in vec]
    elif mode == Mode.KEYWORD:
        hits = [_scored(h, h.keyword) for h in kw]
    else:
        hits = _hybrid(db, cfg, vec, kw, embedding, pool, namespace, subject, digest=digest, as_of=as_of)
    # Scores are rounded so that float summation order can never swap two equal memories.
    for h in hits:
        h.score = round(h.score, 9)
    hits.sort(key=lambda h: (h.memory.epistemic_status == "unsupported", -h.score, h.id))
    if mode == Mode.HYBRID and diverse and cfg.retrieval.diversity > 0:
        hits = diversify(db, hits, cfg.retrieval.diversity, cfg.retrieval.diversity_pool)
    return hits


def _scored(h: Candidate, score: float) -> Candidate:
    h.score = score
    return h


def _hybrid(db: Database, cfg: Config, vec: list[Candidate], kw: list[Candidate], embedding: list[float] | None,
            pool: int, namespace: str | None, subject: str | None, *, digest: bool,
            as_of: datetime | None) -> list[Candidate]:
    """Fusion, the graph step, the community prior and which candidates cite: after the two lists,
    one round trip (cypher/retrieval/spread reads the graph step and the candidates' groups);
    personalised PageRank costs its own three."""
    rc = cfg.retrieval
    vbest = best(vec, "vector")
    hits = fuse(vec, kw, rc.keyword_weight)
    if not hits:
        return hits
    seeds = _seeds(hits, rc.graph_seeds) if rc.graph_weight > 0 else []
    if seeds and rc.graph_method == "ppr":
        rows, key, scale = lists.ppr(db, cfg, seeds, embedding, pool, namespace, subject)
        hits, seeds = _add_graph(hits, rows, key, scale, rc.graph_weight, vbest), []
    rows, read = lists.spread(db, cfg, seeds, embedding, pool, namespace, subject, ids=[h.id for h in hits],
                              communities=rc.community_weight > 0, digest=digest, as_of=as_of)
    if seeds:
        hits = _add_graph(hits, rows, "spread", 1.0, rc.graph_weight, vbest)
    if rc.community_weight > 0:
        hits = community(hits, read["groups"], rc.community_weight)
    if digest:
        hits = derived(hits, read["groups"])
    return hits


def best(hits: list[Candidate], key: str) -> float:
    """The query's best score in one list: the scale its scores are divided by (1 when none is positive)."""
    top = max((getattr(h, key) for h in hits if getattr(h, key) is not None), default=0.0)
    return top if top > 0 else 1.0


def fuse(vec: list[Candidate], kw: list[Candidate], keyword_weight: float) -> list[Candidate]:
    """Score fusion: cosine / the query's best cosine + keyword_weight * bm25 / the query's best
    bm25. Scaling by the best score (the first of each list, whatever the pool) keeps a memory's
    score independent of k and of the corpus's score range; fitted on the dev conversations
    (bench/retrieval/answers.py) it never fell below the better single list, where rank fusion did."""
    vbest, kbest = best(vec, "vector"), best(kw, "keyword")
    fused: dict[str, Candidate] = {}
    for hits in (vec, kw):
        for h in hits:
            entry = fused.setdefault(h.id, Candidate(h.memory))
            if h.vector is not None:
                entry.vector, entry.key = h.vector, h.key
            if h.keyword is not None:
                entry.keyword = h.keyword
            entry.superseded = sorted(set(entry.superseded) | set(h.superseded))
    for entry in fused.values():
        entry.score = (entry.vector or 0.0) / vbest + keyword_weight * (entry.keyword or 0.0) / kbest
    return list(fused.values())


def _seeds(hits: list[Candidate], n: int) -> list[dict[str, Any]]:
    """The best `n` fused hits with a positive score, each weighted by its score / the best score:
    where both graph steps start."""
    order = sorted(hits, key=lambda h: (-h.score, h.id))
    top = order[0].score if order[0].score > 0 else 1.0
    return [{"id": h.id, "weight": h.score / top} for h in order[:n] if h.score > 0]


def _add_graph(hits: list[Candidate], rows: list[dict[str, Any]], key: str, scale: float, weight: float,
               vbest: float) -> list[Candidate]:
    """Each row's graph score (`row[key] / scale`) added to its memory's, `weight` times; a memory
    reached only through the graph is scored by its own cosine too."""
    by_id = {h.id: h for h in hits}
    for r in rows:
        h = by_id.get(r["memory"]["id"])
        if h is None:
            h = by_id[r["memory"]["id"]] = Candidate(Head.of(r["memory"]), vector=r["cosine"],
                                                     score=(r["cosine"] or 0.0) / vbest)
        h.graph = r[key] / scale
        h.score = h.score + weight * h.graph
    return list(by_id.values())


def community(hits: list[Candidate], groups: list[dict[str, Any]], weight: float) -> list[Candidate]:
    """Cluster-based smoothing (Kurland & Lee 2004; Liu & Croft 2004): each candidate gains
    `weight` x the summed score of its community's other candidates / the community's other
    members (a member that is not a candidate counts 0). A community is one namespace's, stored
    by the latest scan, so the prior never reads another namespace. Scores before the prior are
    what the sums read: the order candidates come in changes nothing."""
    of = {r["id"]: (r["community"], r["size"]) for r in groups if r["community"] is not None}
    total: dict[str, float] = {}
    for h in hits:
        if h.id in of:
            c = of[h.id][0]
            total[c] = total.get(c, 0.0) + h.score
    for h in hits:
        if h.id in of:
            c, size = of[h.id]
            h.community = (total[c] - h.score) / max(1, size - 1)
            h.score = h.score + weight * h.community
    return hits


def derived(hits: list[Candidate], groups: list[dict[str, Any]]) -> list[Candidate]:
    """Each candidate learns whether it cites anything (`derived`): only those carry members, or
    route to them (retrieval's walk). An insight ranks by its own score: issue 39 lifted one to just
    above the best candidate it cites ("stands for" it), which put it in one of the first places of
    nearly every query after consolidation; issue 61 routes it to its members instead."""
    by_id = {h.id: h for h in hits}
    for r in groups:
        by_id[r["id"]].derived = r["derived"]
    return hits


def diversify(db: Database, hits: list[Candidate], weight: float, pool: int) -> list[Candidate]:
    """Maximal marginal relevance over the best `pool` supported hits: each next place goes to the
    highest score - weight x the hit's highest cosine to a hit already placed (ties: the ranking's
    order). Unsupported insights and hits past the pool keep their order after them."""
    head = [h for h in hits[:pool] if h.memory.epistemic_status != "unsupported"]
    if len(head) < 3:
        return hits
    embeddings = [e[0] for e in db.run("retrieval/embeddings", Rows.PLAIN, ids=[h.id for h in head])[0]["es"]]
    sim = np.maximum(cosines(embeddings), 0.0)  # only likeness is penalised (the diagonal is never read)
    scores = np.array([h.score for h in head])
    closest = np.zeros(len(head))
    placed_at = np.zeros(len(head), dtype=bool)
    order = []
    # Each step over the whole pool at once (issue 52: a Python max over rounded numpy scalars cost
    # ~5 ms a retrieve): the same doubles, the same np.round as round() on a numpy float, and
    # argmax's first maximum is the lowest index, the ranking's order among ties.
    for _ in range(len(head)):
        marginal = np.round(scores - weight * closest, 9)
        marginal[placed_at] = -np.inf
        nxt = int(np.argmax(marginal))
        order.append(nxt)
        placed_at[nxt] = True
        closest = np.maximum(closest, sim[nxt])
    placed = {h.id for h in head}
    return [head[i] for i in order] + [h for h in hits if h.id not in placed]
