"""The gate's figures for many disjoint parts at once (issue 15), by one definition:

    weight_sum  sum over member pairs of the fused weight, each pair capped at 1 (cohesion)
    edges       member pairs with a positive fused weight
    coaccess    sum of CO_ACCESSED counts between members (salience)
    insight, covered
                the live insight that already SUMMARIZES the most members, and how many (novelty)

Two sources:
- `from_projection`: a scan's parts, from the edges of the fused projection the communities were
  found on (`Projection.edges`, collected by the projection query itself): no second walk over the
  store's edges, which cost more than the projection (100k memories: 3.6-5.5 s, against ~0.2 s
  more projection time; streaming them back out of GDS took 1-1.8 s). The projection holds
  every pair whose weight is positive, with its co-access count, so it is exact
  whenever no pair with co-access is left out of it, i.e. `coaccess_weight > 0` (weights are
  >= 0 by config, so no other pair with a contribution is left out) (`projection_exact`).
- `from_store`: any other parts (a caller's clusters), read from the store in one pass
  (gate/figures_parts).
Novelty is always read from the store: SUMMARIZES edges are not projected. Per part, the live
insight that SUMMARIZES the most of its members (ties: the smallest insight id), counted in Python
from each insight's members (gate/insight_members).
Float sums are exact (math.fsum) or taken in a fixed order: the same parts give the same figures.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any, Sequence

import numpy as np

from graphcons.consolidation.fusion import Edges
from graphcons.core.config import ConsolidationConfig
from graphcons.core.db import Database, Rows


def projection_exact(cc: ConsolidationConfig) -> bool:
    """Whether the projected edges carry every pair the figures count (see the module doc)."""
    return cc.coaccess_weight > 0


def _empty(n: int) -> dict[int, dict[str, Any]]:
    return {i: {"weight_sum": 0.0, "edges": 0, "coaccess": 0, "insight": None, "covered": 0} for i in range(n)}


def from_projection(db: Database, edges: Edges, parts: list[Sequence[str]], nodes: Sequence[int],
                    live: list[str], namespaces: list[str]) -> dict[int, dict[str, Any]]:
    """Figures of every part, by index; `nodes` holds each member's node id in the projection (as
    detection streamed it), in the order of the parts' members; `namespaces` those of the parts."""
    rows = _empty(len(parts))
    sizes = np.fromiter(map(len, parts), np.int64, len(parts))
    if sizes.sum():
        node = np.asarray(nodes, dtype=np.int64)
        part = np.repeat(np.arange(len(parts), dtype=np.int64), sizes)
        order = np.argsort(node, kind="stable")
        node, part = node[order], part[order]

        def part_of(x: np.ndarray) -> np.ndarray:  # -1 for a node in no part
            i = np.minimum(np.searchsorted(node, x), len(node) - 1)
            return np.where(node[i] == x, part[i], -1)

        ps, pt = part_of(edges.source), part_of(edges.target)
        inside = (ps >= 0) & (ps == pt)
        p = ps[inside]
        count = np.bincount(p, minlength=len(parts))
        coaccess = np.bincount(p, weights=edges.coaccess[inside], minlength=len(parts))  # integers: exact
        by_part = np.argsort(p, kind="stable")
        capped = np.minimum(edges.weight[inside], 1.0)[by_part].tolist()
        bounds = np.searchsorted(p[by_part], np.arange(len(parts) + 1)).tolist()
        for i in np.flatnonzero(count).tolist():
            rows[i].update(weight_sum=math.fsum(capped[bounds[i]:bounds[i + 1]]), edges=int(count[i]),
                           coaccess=int(coaccess[i]))
    _novelty(db, rows, parts, live, namespaces)
    return rows


def from_store(db: Database, parts: list[Sequence[str]], params: dict[str, Any],
               namespaces: list[str]) -> dict[int, dict[str, Any]]:
    """Figures of every part, by index, read from the store in one pass over all members."""
    rows = _empty(len(parts))
    index = _index(parts)
    for r in db.run("gate/figures_parts", Rows.VALUES, part=index, **params):
        rows[r["p"]].update(weight_sum=r["weight_sum"], edges=r["edges"], coaccess=r["coaccess"])
    _novelty(db, rows, parts, params["live"], namespaces, index)
    return rows


def _index(parts: list[Sequence[str]]) -> dict[str, int]:
    return {m: i for i, p in enumerate(parts) for m in p}


def _novelty(db: Database, rows: dict[int, dict[str, Any]], parts: list[Sequence[str]], live: list[str],
             namespaces: list[str], index: dict[str, int] | None = None) -> None:
    """`index`: the parts' member -> part map when the caller has it (built here only if an insight
    covers any member of these namespaces: a scan of 1M memories with no insight never builds it)."""
    covers = db.run("gate/insight_members", Rows.PLAIN, live=live, namespaces=namespaces)
    if not covers:
        return
    part = index if index is not None else _index(parts)
    for c in sorted(covers, key=lambda c: c["insight"]):  # ascending ids: a tie keeps the smallest
        counts = Counter(part[m] for m in c["members"] if m in part)
        for p, covered in counts.items():
            if covered > rows[p]["covered"]:
                rows[p].update(insight=c["insight"], covered=covered)
