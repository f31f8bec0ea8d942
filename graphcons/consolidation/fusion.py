"""The fused graph (seed 000): similarity, explicit links and co-access in one GDS projection.

One weighted, undirected in-memory graph over live memories, projected server-side with a
Cypher aggregation (cypher/clusters/project.cypher); the detectors run on it server-side. The
weight of a pair is the sum of its signals:

    similarity_weight * score                       (SIMILAR, score >= sim_floor)
  + link_weight * link_kind_weights.get(kind, 1.0)  (LINKED, per kind)
  + coaccess_weight * count / (count + coaccess_k)  (CO_ACCESSED, saturating)

Memories of different namespaces never share an edge; deprecated and archived memories
are left out; an insight and a memory it SUMMARIZES share no edge (so insights cluster
among insights, the schema tree of seed 000). Nodes are numbered in id order; the projection
query can also return its edges with each pair's co-access count (`Projection.edges`), from
which a scan's gate computes its figures instead of walking the store's edges again.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graphcons.core.config import ConsolidationConfig
from graphcons.core.db import Database, Rows
from graphcons.core.memory import LIVE_STATUSES
from graphcons.store import tie


@dataclass(frozen=True)
class Edges:
    """The projected graph's edges, each undirected pair once, as parallel arrays: the two nodes
    (the ids the detectors stream with each member), the fused weight and the pair's co-access
    count. What the gate's figures are computed from in a scan (graphcons.consolidation.figures)."""

    source: np.ndarray
    target: np.ndarray
    weight: np.ndarray
    coaccess: np.ndarray

    def __len__(self) -> int:
        return len(self.source)


@dataclass(frozen=True)
class Projection:
    graph_name: str
    nodes: int
    relationships: int  # undirected edges are counted once per direction by GDS
    total_weight: float = 0.0  # sum of the fused weights, each undirected edge once
    edges: Edges | None = field(default=None, compare=False, repr=False)  # with project(with_edges=True)

    def __post_init__(self) -> None:
        # Cypher's sum() adds rows in the order they arrive, which differs between runs and
        # clients, so the total's last bits do too (393.7684144285711 vs ...13); rounded, the
        # same graph has one total and one Leiden resolution derived from it.
        object.__setattr__(self, "total_weight", round(float(self.total_weight), 9))

    @property
    def mean_weighted_degree(self) -> float:
        return 2 * self.total_weight / self.nodes if self.nodes else 0.0


def weight_params(cc: ConsolidationConfig) -> dict[str, Any]:
    """The parameters shared by the projection and the gate's cohesion (one formula)."""
    return {
        "sim_floor": float(cc.similarity_floor),
        "similarity_weight": float(cc.similarity_weight),
        "link_weight": float(cc.link_weight),
        "link_kind_weights": {k: float(v) for k, v in cc.link_kind_weights.items()},
        "coaccess_weight": float(cc.coaccess_weight),
        "coaccess_k": float(cc.coaccess_k),
        "live": LIVE_STATUSES,
    }


def new_graph_name(run_id: str | None = None) -> str:
    return f"graphcons-fused-{run_id or uuid.uuid4().hex[:12]}"


def project(db: Database, cc: ConsolidationConfig, graph_name: str, *, namespace: str | None = None,
            subjects: list[str] | None = None, with_edges: bool = False) -> Projection:
    """Project the fused graph under `graph_name` (drop it with `drop` when done).

    Each node carries its `tie` (graphcons.store.tie), label propagation's tie-breaker. With
    `with_edges` the projected edges come back too (`Projection.edges`), read in the same pass."""
    row = db.run("clusters/project", Rows.PLAIN, graph_name=graph_name, namespace=namespace, subjects=subjects,
                       with_edges=with_edges,
                       **tie.params(), **weight_params(cc))[0]
    if row["graph"] is None:  # an empty store (or namespace): the aggregation saw no row, no graph
        return Projection(graph_name=graph_name, nodes=0, relationships=0)
    relationships = 0
    if row["relationships"]:  # nodes without any edge have no relationship type to turn undirected
        relationships = db.run("clusters/undirected", graph_name=graph_name)[0]["relationships"]
    edges = _pairs(row) if with_edges else None
    return Projection(graph_name=row["graph"], nodes=row["nodes"], relationships=relationships,
                      total_weight=float(row["total_weight"] or 0.0), edges=edges)


def _pairs(row: dict[str, Any]) -> Edges:
    """The projection's relationship rows summed per unordered pair, as clusters/undirected sums
    them in GDS (pairs sorted by node id; each pair's sum taken in row order)."""
    source = np.asarray(row["source"], dtype=np.int64)
    target = np.asarray(row["target"], dtype=np.int64)
    lo, hi = np.minimum(source, target), np.maximum(source, target)
    if not len(lo):  # memories without a single edge
        return Edges(source=lo, target=hi, weight=np.zeros(0), coaccess=np.zeros(0))
    order = np.lexsort((hi, lo))
    starts = np.r_[True, (lo[order][1:] != lo[order][:-1]) | (hi[order][1:] != hi[order][:-1])]
    pair = np.empty(len(order), dtype=np.int64)
    pair[order] = np.cumsum(starts) - 1  # each row's pair, rows kept in their order for the sums
    first = order[starts]
    weight = np.bincount(pair, weights=np.asarray(row["weight"], dtype=np.float64), minlength=len(first))
    coaccess = np.bincount(pair, weights=np.asarray(row["coaccess"], dtype=np.float64), minlength=len(first))
    return Edges(source=lo[first], target=hi[first], weight=weight, coaccess=coaccess)


def drop(db: Database, graph_name: str) -> None:
    """Drop the in-memory projection (the stored graph is untouched)."""
    db.run("clusters/drop_graph", graph_name=graph_name)
