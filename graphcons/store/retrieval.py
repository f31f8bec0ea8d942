"""Retrieval: the memories that answer a query, within a scope, in a reproducible order.

Modes (config `retrieval.mode`, or `mode=`):
- vector:  cosine to the query embedding.
- keyword: full-text (BM25) over title and content; the user's text is escaped, so any
  string is a valid query.
- hybrid (default): both lists, each scaled by the query's best score of that list, summed
  (cosine / best + keyword_weight * bm25 / best), then graph-aware: the top `graph_seeds`
  fused hits spread one step along SIMILAR, LINKED, CO_ACCESSED and SUMMARIZES edges (and to
  an insight's other members) within the scope, and each memory gains `graph_weight` x the
  spread it received (cypher/retrieval/spread.cypher; docs/RETRIEVAL.md says why and how
  much it helps). A memory reached only through the graph is scored by its own cosine too.

Candidate pool: each list contributes its top max(hybrid_pool, k), so for every k up to
`hybrid_pool` the top k is the prefix of the top k + n (no score depends on k).

Scope: namespace and/or subject filter the candidates BEFORE the top-k is taken. Scopes of
up to `retrieval.exact_scope_max` memories are scanned exactly; larger ones read the vector
index with a pool that widens until k in-scope results are found (or the pool is the
whole store), so a scope holding k live memories always returns k.

Community prior (`retrieval.community_weight`, hybrid, 0.1): a candidate gains the
mean score of its stored community's other members among the candidates (`_community`).

Insights (`retrieval.insights`): "digest" (default, issue 39): one memory stands for many. An
insight whose digest cites a candidate ranks where the best candidate it cites would
(`_stand_for`, hybrid mode), it is one of k, and it carries every member it cites (their facts
are in its text) as `members`, most relevant to the query first; those members are not shown
again. "group" lists, under each insight hit, up to `members_per_insight` of the members it
SUMMARIZES, each counted in k. In both, a member hit shows the insights that summarise it.
"plain" turns this off. An insight whose epistemic_status is "unsupported" ranks below every
other hit.

Deprecated memories are never returned themselves: a hit on one lands on the memory that
SUPERSEDES it. Using results records co-access (record=True, not in `search_text`).
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from typing import Any

import numpy as np
from neo4j.exceptions import ClientError


from graphcons.core.config import Config
from graphcons.core.db import Database, alongside
from graphcons.core.embedders import Embedder
from graphcons.core.errors import ServerUnavailable, ValidationError
from graphcons.core.memory import LIVE_STATUSES, Memory
from graphcons.core.vectors import cosine_matrix
from graphcons.store import schema
from graphcons.store.neighbours import UNLIMITED
from graphcons.store.coaccess import record_access
from graphcons.store.justification import annotate

log = logging.getLogger("graphcons.retrieval")


class Hits(list):
    """retrieve()'s ranked hits (a plain list) that also say what became of their co-access
    recording: "recorded", "off" (record=False or no hits) or "skipped: <why>" (issue 30)."""

    recording: str = "off"

@dataclass(frozen=True, slots=True)
class Head:
    """What ranking needs of a candidate; the shown hits are read in full once (`_hydrate`)."""

    id: str
    kind: str | None = None
    epistemic_status: str | None = None

    @classmethod
    def of(cls, props: dict[str, Any]) -> "Head":
        return cls(props["id"], props.get("kind"), props.get("epistemic_status"))


MODES = ("hybrid", "vector", "keyword")
INSIGHT_MODES = ("digest", "group", "plain")
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


def retrieve(db: Database, cfg: Config, embedder: Embedder, query: str, k: int = 5, *,
             namespace: str | None = None, subject: str | None = None, session: str | None = None,
             record: bool = True, mode: str | None = None, insights: str | None = None) -> Hits:
    """Ranked hits: {memory, score, superseded, vector, keyword} (+ members / insights when grouped).

    The search reads in read transactions; recording the use is a separate write, retried on
    deadlocks. A recording that still fails does not cost the caller its hits: they come back
    with `recording` saying it was skipped."""
    rc = cfg.retrieval
    mode = mode or rc.mode
    insights = insights or rc.insights
    _check(query, k, namespace, subject, mode, insights)
    embedding = embedder.embed_one(query) if mode != "keyword" else None
    pool = max(rc.hybrid_pool, k)  # independent of k up to hybrid_pool: top k is a prefix of top k + n
    ranked = _ranked(db, cfg, query, embedding, pool, namespace, subject, mode, digest=insights == "digest")
    shown = ranked[:k] if insights == "plain" else _group(db, ranked, k, embedding, rc.members_per_insight,
                                                          digest=insights == "digest")
    hits = _hydrate(db, shown, summarised=insights != "plain")
    recording = "off"
    if record and hits:
        ids = _shown_ids(hits)
        try:
            record_access(db, cfg, session or f"retrieve-{uuid.uuid4().hex[:12]}", ids)
            recording = "recorded"
        except ServerUnavailable as exc:  # deadlocked past every retry, or Neo4j lost mid-call
            log.warning("retrieve: co-access recording skipped: %s", exc)
            recording = f"skipped: {exc.public}"
    out = Hits(annotate(db, hits))  # epistemic status and scoped exceptions travel with each insight
    out.recording = recording
    return out


def search_text(db: Database, text: str, k: int = 10, *, namespace: str | None = None,
                subject: str | None = None) -> list[dict[str, Any]]:
    """Plain keyword search; records nothing."""
    _check(text, k, namespace, subject, "keyword", "plain", field="text")
    hits = _hydrate(db, _keyword(db, text, k, namespace, subject))
    return annotate(db, [{"memory": h["memory"], "score": h["keyword"]} for h in hits])


def _check(query: Any, k: Any, namespace: Any, subject: Any, mode: Any, insights: Any, *, field: str = "query") -> None:
    if not isinstance(query, str) or not query.strip():
        raise ValidationError(field, "must be a non-empty string")
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 1000:
        raise ValidationError("k", "must be an integer between 1 and 1000")
    for name, value in (("namespace", namespace), ("subject", subject)):
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise ValidationError(name, "must be a non-empty string or None")
    if mode not in MODES:
        raise ValidationError("mode", f"must be one of {', '.join(MODES)}")
    if insights not in INSIGHT_MODES:
        raise ValidationError("insights", f"must be one of {', '.join(INSIGHT_MODES)}")


def _ranked(db: Database, cfg: Config, query: str, embedding: list[float] | None, pool: int,
            namespace: str | None, subject: str | None, mode: str, *, digest: bool = False) -> list[dict[str, Any]]:
    def vector() -> list[dict[str, Any]]:
        return _vector(db, cfg, embedding, pool, namespace, subject) if mode != "keyword" else []

    def keyword() -> list[dict[str, Any]]:
        return _keyword(db, query, pool, namespace, subject, pool=cfg.retrieval.index_pool) if mode != "vector" else []

    # Independent lists: in hybrid mode read at once (at 100k memories ~25 ms off the p50, issue 39).
    kw, vec = alongside(keyword, vector) if mode == "hybrid" else (keyword(), vector())
    if mode == "vector":
        hits = [dict(h, score=h["vector"]) for h in vec]
    elif mode == "keyword":
        hits = [dict(h, score=h["keyword"]) for h in kw]
    else:
        rc = cfg.retrieval
        hits = _fuse(vec, kw, rc.keyword_weight)
        if rc.graph_weight > 0 and hits:
            step = _ppr if rc.graph_method == "ppr" else _spread
            hits = step(db, cfg, hits, embedding, pool, namespace, subject, _best(vec, "vector"))
        if (rc.community_weight > 0 or digest) and hits:
            groups = db.run("retrieval/candidate_groups", ids=[h["memory"].id for h in hits],
                            communities=rc.community_weight > 0, digest=digest, live=list(LIVE_STATUSES),
                            namespace=namespace, subject=subject)[0]["groups"]
            if rc.community_weight > 0:
                hits = _community(hits, groups, rc.community_weight)
            if digest:
                hits = _stand_for(hits, groups)
    # Unsupported insights after everything else; then score, then id (deterministic). Scores are
    # rounded so that float summation order can never swap two equal memories.
    for h in hits:
        h["score"] = round(h["score"], 9)
    hits.sort(key=lambda h: (h["memory"].epistemic_status == "unsupported", -h["score"], h["memory"].id))
    if mode == "hybrid" and cfg.retrieval.diversity > 0:
        hits = _diversify(db, hits, cfg.retrieval.diversity, cfg.retrieval.diversity_pool)
    return hits


def _community(hits: list[dict[str, Any]], groups: list[dict[str, Any]], weight: float) -> list[dict[str, Any]]:
    """Cluster-based smoothing (Kurland & Lee 2004; Liu & Croft 2004): each candidate gains
    `weight` x the summed score of its community's other candidates / the community's other
    members (a member that is not a candidate counts 0). A community is one namespace's, stored
    by the latest scan, so the prior never reads another namespace. Scores before the prior are
    what the sums read: the order candidates come in changes nothing."""
    of = {r["id"]: (r["community"], r["size"]) for r in groups if r["community"] is not None}
    total: dict[str, float] = {}
    for h in hits:
        if h["memory"].id in of:
            c = of[h["memory"].id][0]
            total[c] = total.get(c, 0.0) + h["score"]
    for h in hits:
        if h["memory"].id in of:
            c, size = of[h["memory"].id]
            h["community"] = (total[c] - h["score"]) / max(1, size - 1)
            h["score"] = h["score"] + weight * h["community"]
    return hits


STAND_FOR_EPS = 1e-6  # an insight ranks just above the best member it stands for


def _stand_for(hits: list[dict[str, Any]], groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One memory stands for many (issue 39): an insight that cites a candidate ranks where the best
    candidate it cites would (when that is above its own score), since its text states that
    member's fact and its siblings'; the members it carries are then not shown again (`_group`).
    Each candidate also learns whether it cites anything (`derived`): only those carry members."""
    by_id = {h["memory"].id: h for h in hits}
    best: dict[str, float] = {}
    heads: dict[str, dict[str, Any]] = {}
    for r in groups:
        by_id[r["id"]]["derived"] = r["derived"]
        for insight in r["citing"]:
            heads[insight["id"]] = insight
            best[insight["id"]] = max(best.get(insight["id"], float("-inf")), by_id[r["id"]]["score"])
    for iid in sorted(best):
        h = by_id.get(iid)
        if h is None:
            h = by_id[iid] = {"memory": Head.of(heads[iid]), "vector": None, "keyword": None,
                              "superseded": [], "score": 0.0, "derived": True}
        if best[iid] + STAND_FOR_EPS > h["score"]:
            h["score"] = best[iid] + STAND_FOR_EPS
    return list(by_id.values())


def _diversify(db: Database, hits: list[dict[str, Any]], weight: float, pool: int) -> list[dict[str, Any]]:
    """Maximal marginal relevance over the best `pool` supported hits: each next place goes to the
    highest score - weight x the hit's highest cosine to a hit already placed (ties: the ranking's
    order). Unsupported insights and hits past the pool keep their order after them."""
    head = [h for h in hits[:pool] if h["memory"].epistemic_status != "unsupported"]
    if len(head) < 3:
        return hits
    sims = db.run_values("retrieval/pair_cosines", ids=[h["memory"].id for h in head])[0]["sims"]
    sim = np.maximum(cosine_matrix(sims), 0.0)  # only likeness is penalised (the diagonal is never read)
    closest = np.zeros(len(head))
    left = list(range(len(head)))
    order = []
    while left:
        best = max(left, key=lambda i: (round(head[i]["score"] - weight * closest[i], 9), -i))
        order.append(best)
        left.remove(best)
        closest = np.maximum(closest, sim[best])
    placed = {h["memory"].id for h in head}
    return [head[i] for i in order] + [h for h in hits if h["memory"].id not in placed]


def _best(hits: list[dict[str, Any]], key: str) -> float:
    """The query's best score in one list: the scale its scores are divided by (1 when none is positive)."""
    best = max((h[key] for h in hits if h[key] is not None), default=0.0)
    return best if best > 0 else 1.0


def _fuse(vec: list[dict[str, Any]], kw: list[dict[str, Any]], keyword_weight: float) -> list[dict[str, Any]]:
    """Score fusion: cosine / the query's best cosine + keyword_weight * bm25 / the query's best
    bm25. Scaling by the best score (the first of each list, whatever the pool) keeps a memory's
    score independent of k and of the corpus's score range; fitted on the dev conversations
    (bench/retrieval.py) it never fell below the better single list, where rank fusion did."""
    vbest, kbest = _best(vec, "vector"), _best(kw, "keyword")
    fused: dict[str, dict[str, Any]] = {}
    for hits in (vec, kw):
        for h in hits:
            entry = fused.setdefault(h["memory"].id, {"memory": h["memory"], "score": 0.0, "superseded": [],
                                                      "vector": None, "keyword": None})
            if h["vector"] is not None:
                entry["vector"] = h["vector"]
            if h["keyword"] is not None:
                entry["keyword"] = h["keyword"]
            entry["superseded"] = sorted(set(entry["superseded"]) | set(h["superseded"]))
    for entry in fused.values():
        entry["score"] = (entry["vector"] or 0.0) / vbest + keyword_weight * (entry["keyword"] or 0.0) / kbest
    return list(fused.values())


def _seeds(hits: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """The best `n` fused hits with a positive score, each weighted by its score / the best score:
    where both graph steps start."""
    ranked = sorted(hits, key=lambda h: (-h["score"], h["memory"].id))
    top = ranked[0]["score"] if ranked[0]["score"] > 0 else 1.0
    return [{"id": h["memory"].id, "weight": h["score"] / top} for h in ranked[:n] if h["score"] > 0]


def _add_graph(hits: list[dict[str, Any]], rows: list[dict[str, Any]], key: str, scale: float, weight: float,
               vbest: float) -> list[dict[str, Any]]:
    """Each row's graph score (`row[key] / scale`) added to its memory's, `weight` times; a memory
    reached only through the graph is scored by its own cosine too."""
    by_id = {h["memory"].id: h for h in hits}
    for r in rows:
        h = by_id.get(r["memory"]["id"])
        if h is None:
            h = by_id[r["memory"]["id"]] = {"memory": Head.of(r["memory"]), "vector": r["cosine"],
                                            "keyword": None, "superseded": [],
                                            "score": (r["cosine"] or 0.0) / vbest}
        h["graph"] = r[key] / scale
        h["score"] = h["score"] + weight * h["graph"]
    return list(by_id.values())


def _spread(db: Database, cfg: Config, hits: list[dict[str, Any]], embedding: list[float] | None, pool: int,
            namespace: str | None, subject: str | None, vbest: float) -> list[dict[str, Any]]:
    """Graph-aware recall: the best `graph_seeds` hits spread one step through the stored graph;
    every memory gains graph_weight x what it received. One Cypher statement, bounded by the
    seeds' degrees (no projection per query: measured in docs/RETRIEVAL.md)."""
    rc, cc = cfg.retrieval, cfg.consolidation
    seeds = _seeds(hits, rc.graph_seeds)
    if not seeds:
        return hits
    rows = db.run("retrieval/spread", seeds=seeds, kinds=dict(rc.graph_kinds), link_kinds=dict(cc.link_kind_weights),
                  coaccess_k=float(cc.coaccess_k), sim_floor=float(cfg.similarity_floor), live=list(LIVE_STATUSES),
                  namespace=namespace, subject=subject, embedding=embedding, limit=pool)[0]["rows"]
    return _add_graph(hits, rows, "spread", 1.0, rc.graph_weight, vbest)


def _ppr(db: Database, cfg: Config, hits: list[dict[str, Any]], embedding: list[float] | None, pool: int,
         namespace: str | None, subject: str | None, vbest: float) -> list[dict[str, Any]]:
    """Graph-aware recall by personalised PageRank (HippoRAG): the scope's live memories and the
    edges consolidation maintains projected for this query, PageRank teleporting to the seeds,
    then dropped. A memory gains graph_weight x the rank walks from the other seeds bring it, in
    units of one full step from a weight-1 seed."""
    rc, cc = cfg.retrieval, cfg.consolidation
    seeds = _seeds(hits, rc.graph_seeds)
    if not seeds:
        return hits
    name = f"graphcons-ppr-{uuid.uuid4().hex[:12]}"
    row = db.run("retrieval/ppr_project", graph_name=name, kinds=dict(rc.graph_kinds),
                 link_kinds=dict(cc.link_kind_weights), coaccess_k=float(cc.coaccess_k),
                 sim_floor=float(cfg.similarity_floor), live=list(LIVE_STATUSES), namespace=namespace,
                 subject=subject)[0]
    if row["graph"] is None:  # an empty scope: nothing projected
        return hits
    try:
        if not row["relationships"]:  # no edge to walk: the ranks would be the seeds' own
            return hits
        rows = db.run("retrieval/ppr_stream", graph_name=name, seeds=seeds, damping=float(rc.ppr_damping),
                      embedding=embedding, limit=pool)
    finally:
        db.run("clusters/drop_graph", graph_name=name)
    # 1 = what a seed of weight 1 gives a neighbour that is its only edge after one step of the walk
    # (teleport 1 - d, then d along the edge): the scale of the spread step's strongest path.
    return _add_graph(hits, rows, "rank", rc.ppr_damping * (1 - rc.ppr_damping), rc.graph_weight, vbest)


def _vector(db: Database, cfg: Config, embedding: list[float], k: int, namespace: str | None,
            subject: str | None) -> list[dict[str, Any]]:
    scope = dict(namespace=namespace, subject=subject, live=list(LIVE_STATUSES), embedding=embedding, k=k)
    exact = db.run("retrieval/vector_exact", exact_max=cfg.retrieval.exact_scope_max, **scope)[0]
    if exact["size"] <= cfg.retrieval.exact_scope_max:
        rows = exact["hits"]
    else:  # widen the index pool until the scope yields k (or the pool is the whole store)
        store = exact["store"]
        # 2k: headroom for the approximate index and a scope's share of it; the widening covers the
        # rest. At 100k the index answers 400 candidates in ~41 ms, 200 in ~28 ms (issue 28).
        pool = max(cfg.retrieval.index_pool, 2 * k)
        try:
            while True:
                rows = db.run("retrieval/vector", candidates=min(pool, store), **scope)[0]["hits"]
                if len(rows) >= k or pool >= store:
                    break
                pool *= 4
        except ClientError as exc:  # being rebuilt: the whole scope, exactly (slower, never failing)
            if exc.code not in schema.INDEX_NOT_ONLINE:
                raise
            rows = db.run("retrieval/vector_exact", exact_max=UNLIMITED, **scope)[0]["hits"]
    return [{"memory": Head.of(r["memory"]), "vector": r["cosine"], "keyword": None,
             "superseded": list(r["superseded"])} for r in rows]


def _keyword(db: Database, text: str, k: int, namespace: str | None, subject: str | None, *,
             pool: int = 100) -> list[dict[str, Any]]:
    escaped = lucene_escape(text)
    if not _has_term(escaped):  # nothing can match
        return []
    # The index gives its best `candidates` matches in the scope's phrase clauses; widen until no
    # unseen match can enter the scope's top k (cypher/retrieval/fulltext.cypher), so the list is exact.
    lucene = keyword_query(escaped, namespace, subject)
    candidates = max(pool, 2 * k)  # enough that the k-th score is usually above the floor at once
    while True:
        r = db.run("retrieval/fulltext", text=lucene, k=k, candidates=candidates, namespace=namespace,
                   subject=subject, live=list(LIVE_STATUSES))[0]
        rows = r["hits"]
        if r["returned"] < candidates or (len(rows) >= k and rows[k - 1]["score"] > r["floor"]):
            break
        candidates *= 4
    return [{"memory": Head.of(h["memory"]), "keyword": h["score"], "vector": None, "superseded": []}
            for h in rows]


def _group(db: Database, ranked: list[dict[str, Any]], k: int, embedding: list[float] | None,
           per_insight: int, *, digest: bool = False) -> list[dict[str, Any]]:
    """Walk the ranking. "group": each memory shown (insight, nested member or plain hit) takes one
    of k. "digest": an insight takes one of k and carries every member it cites (their facts are
    in its text) as its provenance; a member it carries is not shown again."""
    live = list(LIVE_STATUSES)
    # "digest": every derived memory carries what it cites: an insight, and an approved profile's
    # statements (issue 39: profiles are recall), whatever their kind.
    # (`derived`, read by _stand_for in the hybrid ranking; unknown in the others: asked).
    carriers = [h["memory"].id for h in ranked
                if h["memory"].kind == "insight" or (digest and h.get("derived", True))]
    query = "retrieval/insight_cited" if digest else "retrieval/insight_members"
    members = {r["insight"]: r["members"] for r in
               db.run(query, ids=carriers, embedding=embedding, live=live)} if carriers else {}
    out: list[dict[str, Any]] = []
    shown: set[str] = set()
    used = 0
    for h in ranked:
        if used >= k:
            break
        mid = h["memory"].id
        if mid in shown:
            continue
        hit = dict(h)
        shown.add(mid)
        used += 1
        if h["memory"].kind == "insight" or mid in members:
            nested = []
            for m in members.get(mid, []):
                if not digest and (len(nested) >= per_insight or used >= k):
                    break
                if m["memory"]["id"] in shown:
                    continue
                nested.append({"memory": Head.of(m["memory"]), "relevance": m["relevance"]})
                shown.add(m["memory"]["id"])
                used += 0 if digest else 1
            hit["members"] = nested
        out.append(hit)
    return out  # `_hydrate(..., summarised=True)` adds each plain hit's and member's insights


def _hydrate(db: Database, hits: list[dict[str, Any]], *, summarised: bool = False) -> list[dict[str, Any]]:
    """The shown hits (and their nested members) with their memories read in full, in one query;
    with `summarised` (grouped rankings) also the live insights that summarise each plain hit
    and member (`insights`), in the same round trip."""
    ids = _shown_ids(hits)
    if not ids:
        return hits
    rows = {r["memory"]["id"]: r for r in db.run("retrieval/hydrate", ids=ids, summarised=summarised,
                                                  live=list(LIVE_STATUSES))}
    full = {i: Memory.from_node(r["memory"]) for i, r in rows.items()}
    for h in hits:
        h["memory"] = full[h["memory"].id]
        if summarised and h["memory"].kind != "insight":
            h["insights"] = rows[h["memory"].id]["insights"]
        for m in h.get("members", []):
            m["memory"] = full[m["memory"].id]
            if summarised:
                m["insights"] = rows[m["memory"].id]["insights"]
    return hits


def _shown_ids(hits: list[dict[str, Any]]) -> list[str]:
    """Every memory a result shows: the hits, then the members nested under insight hits."""
    return [h["memory"].id for h in hits] + [m["memory"].id for h in hits for m in h.get("members", [])]
