"""SIMILAR neighbours: per subject, exact, reproducible (issues 9 and 12).

A memory's SIMILAR edges go to the top-k live memories of the same namespace AND subject
whose cosine is at least the floor, ties broken by id. Choosing per subject means common
sentences of other users cannot take a memory's slots; cross-subject similarity is not
stored at all (seed 002: generalising across subjects needs explicit rules, clustering
must not fuse it, and merge does its own blocking), which also keeps admission to one
search.

Scopes up to `admission.exact_scope_max` memories are scanned exactly (cosine against every
member of the scope), so the same memories in the same order give the same edges on every
fresh store. Larger scopes read the vector index with a pool that widens (x4) until k
in-scope neighbours above the floor are found, the pool's weakest candidate is under the
floor, or the pool is the whole store; candidates are re-scored exactly
(bench/retrieval/answers.py measures both paths).
"""

from __future__ import annotations

from typing import Any

from graphcons.core.config import Config
from graphcons.core.memory import LIVE_STATUSES, without_embedding
from graphcons.store import schema

#: Marks a memory whose SIMILAR edges follow this module (`graphcons migrate similar`).
SCHEME = "subject-v1"
UNLIMITED = 2**62  # an exact_max no scope reaches


def choose(tx: Any, cfg: Config, mem_id: str, *, earlier_only: bool = False) -> list[dict[str, Any]]:
    """The neighbours memory `mem_id` should link to: [{id, score}], best first."""
    k = cfg.admission.similar_k
    if k == 0:
        return []
    exact = tx.run("similar/exact", k=k, exact_max=cfg.admission.exact_scope_max, exclude=[],
                   **_params(cfg, mem_id, earlier_only))[0]
    if exact["size"] <= cfg.admission.exact_scope_max:
        return list(exact["neighbours"])
    return choose_by_index(tx, cfg, mem_id, earlier_only=earlier_only)


def choose_by_index(tx: Any, cfg: Config, mem_id: str, *, earlier_only: bool = False,
                    exclude: list[str] | None = None, unindexed: list[str] | None = None) -> list[dict[str, Any]]:
    """The neighbours of a memory whose scope is over `exact_scope_max`, from the vector index.
    For a batch: `exclude` leaves out its later items, `unindexed` are its earlier items
    (written in this transaction, which the index does not see yet), scored exactly."""
    k = cfg.admission.similar_k
    params = _params(cfg, mem_id, earlier_only)
    if not schema.vector_index_online(tx):  # being rebuilt: the whole scope, exactly (slower, never failing)
        return list(tx.run("similar/exact", k=k, exact_max=UNLIMITED, exclude=list(exclude or []), **params)[0]["neighbours"])
    extra = tx.run("similar/among", ids=unindexed, **params)[0]["scored"] if unindexed else []
    store = tx.run("similar/store_size")[0]["size"]
    pool = max(cfg.admission.index_pool, 4 * k)
    while True:
        row = tx.run("similar/index", candidates=min(pool, store), exclude=list(exclude or []), **params)[0]
        scored = {c["id"]: c for c in extra} | {c["id"]: c for c in row["scoped"]}
        found = sorted((c for c in scored.values() if c["score"] >= params["floor"]), key=lambda c: (-c["score"], c["id"]))
        if len(found) >= k or row["lowest"] < params["floor"] or pool >= store:
            return found[:k]
        pool *= 4


def link_by_index(tx: Any, cfg: Config, mem_id: str, *, exclude: list[str] | None = None,
                  unindexed: list[str] | None = None) -> list[dict[str, Any]]:
    """Choose from the vector index and write memory `mem_id`'s SIMILAR edges (large scopes)."""
    chosen = choose_by_index(tx, cfg, mem_id, exclude=exclude, unindexed=unindexed)
    if chosen:
        tx.run("similar/link", id=mem_id, neighbours=chosen)
    return chosen


def _params(cfg: Config, mem_id: str, earlier_only: bool) -> dict[str, Any]:
    return dict(id=mem_id, floor=cfg.consolidation.similarity_floor, live=LIVE_STATUSES, earlier_only=earlier_only)


def link(tx: Any, cfg: Config, mem_id: str, *, earlier_only: bool = False) -> list[dict[str, Any]]:
    """Choose and write memory `mem_id`'s SIMILAR edges; returns the neighbours linked."""
    chosen = choose(tx, cfg, mem_id, earlier_only=earlier_only)
    if chosen:
        tx.run("similar/link", id=mem_id, neighbours=chosen)
    return chosen


def create(tx: Any, cfg: Config, props: dict[str, Any], version_props: dict[str, Any]) -> list[dict[str, Any]]:
    """Insert a memory node with its first version, then its SIMILAR edges (one transaction)."""
    tx.run("memory/create", props={**without_embedding(props), "similar_scheme": SCHEME},
           embedding=props["embedding"], version_props=version_props)
    return link(tx, cfg, props["id"])
