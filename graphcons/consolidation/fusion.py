"""The fused graph (seed 000): similarity, explicit links and co-access in one GDS projection.

One weighted, undirected in-memory graph over live memories, projected server-side with a
Cypher aggregation (cypher/clusters/project.cypher); Python never sees the edges. The
weight of a pair is the sum of its signals:

    similarity_weight * score                       (SIMILAR, score >= sim_floor)
  + link_weight * link_kind_weights.get(kind, 1.0)  (LINKED, per kind)
  + coaccess_weight * count / (count + coaccess_k)  (CO_ACCESSED, saturating)

Memories of different namespaces never share an edge; deprecated and archived memories
are left out; an insight and a memory it SUMMARIZES share no edge (so insights cluster
among insights, the schema tree of seed 000). Each edge also carries the pair's co-access
count, so a scan's gate reads its figures from the projected edges (`Projection.edges`), not
the store.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graphcons.core.config import ConsolidationConfig
from graphcons.core.db import Database
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
        "live": list(LIVE_STATUSES),
    }


def new_graph_name(run_id: str | None = None) -> str:
    return f"graphcons-fused-{run_id or uuid.uuid4().hex[:12]}"


def project(db: Database, cc: ConsolidationConfig, graph_name: str, *, namespace: str | None = None,
            with_edges: bool = False) -> Projection:
    """Project the fused graph under `graph_name` (drop it with `drop` when done).

    Each node carries its `tie` (graphcons.store.tie), label propagation's tie-breaker. With
    `with_edges` the projected edges come back too (`Projection.edges`), read in the same pass."""
    row = db.run_plain("clusters/project", graph_name=graph_name, namespace=namespace, with_edges=with_edges,
                       **tie.params(), **weight_params(cc))[0]
    edges = None
    if with_edges:
        edges = Edges(source=np.asarray(row["source"], dtype=np.int64), target=np.asarray(row["target"], dtype=np.int64),
                      weight=np.asarray(row["weight"], dtype=np.float64),
                      coaccess=np.asarray(row["coaccess"], dtype=np.float64))
    # An empty store (or namespace) projects nothing: the aggregation yields nulls, no graph.
    return Projection(graph_name=row["graph"] or graph_name, nodes=row["nodes"] or 0,
                      relationships=row["relationships"] or 0, total_weight=float(row["total_weight"] or 0.0),
                      edges=edges)


def drop(db: Database, graph_name: str) -> None:
    """Drop the in-memory projection (the stored graph is untouched)."""
    db.run("clusters/drop_graph", graph_name=graph_name)
