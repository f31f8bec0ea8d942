"""Community detection over the fused graph, behind one interface.

Two implementations of `Detector`, chosen by `[consolidation] algorithm`:
- `LabelPropagation` (default): GDS weighted label propagation, bounded `max_iterations`,
  `concurrency: 1`. It has no seed, so the projection feeds nodes in id order, equal votes
  are broken by a fixed per-node weight derived from the memory id (graphcons.store.tie)
  and each community is named by its sorted members (raw ids follow internal node ids).
- `Leiden`: GDS Leiden with `randomSeed = leiden_seed`, `concurrency: 1`. At the modularity
  default (gamma 1) Leiden merges the small clusters graphcons cares about (3-25 members),
  and the gamma that recovers them grows with the graph (bench/clusters/planted.py: about 1 on
  football, 20 on 2k planted memories, more at 100k), so by default the resolution is
  derived per graph from `leiden_density` (see `Leiden`); `leiden_density = 0` uses the
  fixed `leiden_gamma`.

Either way the output is canonical: clusters of >= 2 members (singletons discarded), members
sorted by id, ordered by smallest member id, each with the stable key of `Cluster`.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
from neo4j.exceptions import ClientError

from graphcons.consolidation.cluster import Cluster
from graphcons.consolidation.fusion import Projection
from graphcons.core.config import ConsolidationConfig
from graphcons.core.db import Database, Rows


class Detector(Protocol):
    name: str

    def config(self, proj: Projection | None = None) -> dict[str, Any]: ...

    def detect(self, db: Database, proj: Projection) -> list[Cluster]: ...

    def detect_members(self, db: Database, proj: Projection) -> tuple[list[Cluster], dict[str, dict[str, Any]]]: ...


def _clusters(rows: list[dict[str, Any]]) -> tuple[list[Cluster], dict[str, dict[str, Any]]]:
    """Communities of >= 2 members from the detector's columns (cypher/clusters/{label_propagation,
    leiden}: one row), and each member's fields by id: those of cypher/gate/members, so the scan's
    gate needs no second query over every member, plus `node`, its node id in the projected edges."""
    if not rows or not rows[0]["node"]:
        return [], {}
    r = rows[0]
    community = np.asarray(r["community"], dtype=np.int64)
    order = np.argsort(community, kind="stable")
    starts = np.flatnonzero(np.r_[True, community[order][1:] != community[order][:-1]])
    sizes = np.diff(np.r_[starts, len(order)])
    ids, text, node = r["id"], r["text"], r["node"]
    access, activation, version = r["access_count"], r["activation"], r["version"]
    out = []
    members: dict[str, dict[str, Any]] = {}
    for start, size in zip(starts.tolist(), sizes.tolist()):
        if size < 2:  # a singleton is no cluster
            continue
        group = order[start:start + size].tolist()
        for i in group:
            ns, subject, scope, title = text[i]
            members[ids[i]] = {"id": ids[i], "namespace": ns, "subject": subject, "scope": scope, "title": title,
                               "access_count": access[i], "activation": activation[i], "version": version[i],
                               "node": node[i]}
        namespaces = sorted({text[i][0] for i in group})
        subjects = sorted({text[i][1] for i in group if text[i][1] is not None})
        out.append(Cluster(
            member_ids=tuple(ids[i] for i in group),
            namespace=namespaces[0] if len(namespaces) == 1 else "|".join(namespaces),
            subject=subjects[0] if len(subjects) == 1 else None,
        ))
    out.sort(key=lambda c: c.member_ids[0])
    return out, members


class LabelPropagation:
    name = "label_propagation"

    def __init__(self, max_iterations: int = 20):
        self.max_iterations = max_iterations

    def config(self, proj: Projection | None = None) -> dict[str, Any]:
        return {"maxIterations": self.max_iterations, "relationshipWeightProperty": "weight",
                "nodeWeightProperty": "tie", "concurrency": 1}

    def detect(self, db: Database, proj: Projection) -> list[Cluster]:
        return self.detect_members(db, proj)[0]

    def detect_members(self, db: Database, proj: Projection) -> tuple[list[Cluster], dict[str, dict[str, Any]]]:
        """The clusters and, by id, what the gate needs to know about each member."""
        return _clusters(db.run("clusters/label_propagation", Rows.PLAIN, graph_name=proj.graph_name, config=self.config(proj)))


class Leiden:
    """GDS Leiden (modularity). With `density` > 0 the resolution is derived per graph:
    gamma = density * n / (mean weighted degree), the modularity resolution at which a
    community must be about `density` dense inside (the constant-Potts reading of modularity
    on a graph of near-uniform degree). That keeps the cluster sizes found independent of
    the size of the store; with density 0 the fixed `gamma` is used."""

    name = "leiden"

    def __init__(self, gamma: float = 1.0, seed: int = 42, density: float = 0.0, max_levels: int = 10,
                 node_labels: list[str] | None = None):
        self.gamma = gamma
        self.seed = seed
        self.density = density
        self.max_levels = max_levels
        self.node_labels = node_labels  # run on the subgraph of these in-memory labels only (split.py)

    def resolution(self, proj: Projection | None) -> float:
        if self.density > 0 and proj is not None and proj.mean_weighted_degree > 0:
            return self.density * proj.nodes / proj.mean_weighted_degree
        return float(self.gamma)

    def config(self, proj: Projection | None = None) -> dict[str, Any]:
        out = {"gamma": self.resolution(proj), "randomSeed": int(self.seed), "concurrency": 1,
               "maxLevels": self.max_levels, "relationshipWeightProperty": "weight",
               "includeIntermediateCommunities": False}
        if self.node_labels:
            out["nodeLabels"] = list(self.node_labels)
        return out

    def detect(self, db: Database, proj: Projection) -> list[Cluster]:
        return self.detect_members(db, proj)[0]

    def detect_members(self, db: Database, proj: Projection) -> tuple[list[Cluster], dict[str, dict[str, Any]]]:
        """The clusters and, by id, what the gate needs to know about each member."""
        try:
            return _clusters(db.run("clusters/leiden", Rows.PLAIN, graph_name=proj.graph_name, config=self.config(proj)))
        except ClientError as exc:
            # GDS 2.13 Leiden fails with a NullPointerException on its dendrogram when the first
            # level moves no node (every node stays alone, e.g. gamma far too high for the graph):
            # that outcome is "all singletons", which the scan reports as a red flag.
            if "dendrogramManager" in (exc.message or ""):
                return [], {}
            raise


def make_detector(cc: ConsolidationConfig, algorithm: str | None = None) -> Detector:
    algo = algorithm or cc.algorithm
    if algo == "label_propagation":
        return LabelPropagation(cc.max_iterations)
    if algo == "leiden":
        return Leiden(cc.leiden_gamma, cc.leiden_seed, cc.leiden_density)
    from graphcons.core.errors import ValidationError

    raise ValidationError("consolidation.algorithm", f"unknown algorithm {algo!r}; allowed: label_propagation, leiden")
