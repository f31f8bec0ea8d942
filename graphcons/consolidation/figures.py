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
  whenever no pair with co-access or a contribution to weight_sum is left out of it, i.e.
  `coaccess_weight > 0` and no link kind weighs below 0 (`projection_exact`).
- `from_store`: any other parts (a caller's clusters), read from the store in one pass
  (gate/figures_parts).
Novelty is always read from the store (gate/covering_parts): SUMMARIZES edges are not projected.
Float sums are exact (math.fsum) or taken in a fixed order: the same parts give the same figures.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from graphcons.consolidation.fusion import Edges
from graphcons.core.config import ConsolidationConfig
from graphcons.core.db import Database


def projection_exact(cc: ConsolidationConfig) -> bool:
    """Whether the projected edges carry every pair the figures count (see the module doc)."""
    return cc.coaccess_weight > 0 and all(w >= 0 for w in cc.link_kind_weights.values())


def _empty(indices) -> dict[int, dict[str, Any]]:
    return {i: {"weight_sum": 0.0, "edges": 0, "coaccess": 0, "insight": None, "covered": 0} for i in indices}


def from_projection(db: Database, edges: Edges, part: dict[str, int], node: dict[str, int],
                    live: list[str]) -> dict[int, dict[str, Any]]:
    """Figures of every part; `part` maps each member id to its part's index, `node` each member
    id to its node id in the projection (as detection streamed it)."""
    rows = _empty(set(part.values()))
    if part:
        ids = list(part)
        nodes = np.fromiter((node[m] for m in ids), np.int64, len(ids))
        parts = np.fromiter((part[m] for m in ids), np.int64, len(ids))
        order = np.argsort(nodes, kind="stable")
        nodes, parts = nodes[order], parts[order]

        def part_of(x: np.ndarray) -> np.ndarray:  # -1 for a node in no part
            i = np.minimum(np.searchsorted(nodes, x), len(nodes) - 1)
            return np.where(nodes[i] == x, parts[i], -1)

        ps, pt = part_of(edges.source), part_of(edges.target)
        inside = (ps >= 0) & (ps == pt)
        p = ps[inside]
        n = int(parts.max()) + 1
        count = np.bincount(p, minlength=n)
        coaccess = np.bincount(p, weights=edges.coaccess[inside], minlength=n)  # integers: exact
        by_part = np.argsort(p, kind="stable")
        capped = np.minimum(edges.weight[inside], 1.0)[by_part]
        bounds = np.searchsorted(p[by_part], np.arange(n + 1))
        for i in rows:
            rows[i].update(weight_sum=math.fsum(capped[bounds[i]:bounds[i + 1]].tolist()), edges=int(count[i]),
                           coaccess=int(coaccess[i]))
    _novelty(db, rows, part, live)
    return rows


def from_store(db: Database, part: dict[str, int], params: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """Figures of every part, read from the store in one pass over all members."""
    rows = _empty(set(part.values()))
    for r in db.run_values("gate/figures_parts", part=part, **params):
        rows[r["p"]].update(weight_sum=r["weight_sum"], edges=r["edges"], coaccess=r["coaccess"])
    _novelty(db, rows, part, params["live"])
    return rows


def _novelty(db: Database, rows: dict[int, dict[str, Any]], part: dict[str, int], live: list[str]) -> None:
    for r in db.run_values("gate/covering_parts", part=part, live=live):
        rows[r["p"]].update(insight=r["insight"], covered=r["covered"])
