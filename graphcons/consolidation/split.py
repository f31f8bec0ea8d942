"""Splitting an oversized community (issue 12): parts that fit `max_size`, never a drop.

Template-heavy stores (logs, repeated incidents) form communities of hundreds of members,
the most consolidatable groups of all; rejecting them by size wastes them. A community over
`max_size` is split by Leiden on its own subgraph (the fused graph restricted to its
members, clusters/project_members), starting at resolution `split_gamma` and multiplying it
by `split_gamma_step` until Leiden finds at least two parts, for at most `split_max_depth`
steps. The gate gates each part on its own and splits a part that is still too big again,
from the resolution that split its parent. A community no resolution splits is rejected as
unsplittable.

Issue 15: a scan splits all its oversized communities from ONE projection
(clusters/project_parts: each community's subgraph, its nodes labelled with the community's
index, no edge between communities) and runs Leiden on each label's subgraph, instead of one
projection per community. Each subgraph has the nodes, order and weights project_members gives
it alone (rows in the same (a.id, b.id) order), so the parts are the same.

Modularity on a subgraph is a finer resolution than the same gamma on the whole graph (the
subgraph's total weight is smaller), so a community found by either detector splits along
its own weakest seams first. Deterministic: ordered projection, seeded Leiden, concurrency 1.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from typing import Any

from graphcons.consolidation import fusion, placement
from graphcons.consolidation.cluster import Cluster
from graphcons.consolidation.communities import Leiden
from graphcons.core.config import ConsolidationConfig, GdsConfig
from graphcons.core.db import Database


SPLIT_WORKERS = max(1, min(4, os.cpu_count() or 1))  # Leiden calls in flight at once (split_many)


@dataclass
class Split:
    parts: list[Cluster] = field(default_factory=list)  # empty: no resolution split the community
    gamma: float = 0.0  # the resolution that split it (or the last one tried)
    level: int = 0  # split_gamma * split_gamma_step ** level == gamma


class _OnDatabase:
    """The split's projections and Leiden calls as graphcons' own Cypher on the database's plugin
    (the default); placement.ClientGds does the same through the graphdatascience client, on the
    plugin or in an Aura Graph Analytics session ([gds] client / backend)."""

    workers = SPLIT_WORKERS

    def __init__(self, db: Database):
        self.db = db

    def project_subgraphs(self, db: Database, name: str, graph_name: str, params: dict[str, Any]) -> None:
        db.run(name, graph_name=graph_name, **params)

    def detect(self, db: Database, detector: Leiden, proj: fusion.Projection) -> list[Cluster]:
        return detector.detect(db, proj)

    def drop(self, graph_name: str) -> None:
        fusion.drop(self.db, graph_name)

    def close(self) -> None:
        pass


def _runner(db: Database, gds: GdsConfig | None) -> Any:
    return placement.connect(db, gds) if gds is not None and gds.client else _OnDatabase(db)


def split(db: Database, cc: ConsolidationConfig, cluster: Cluster, level: int = 0,
          gds: GdsConfig | None = None) -> Split:
    """Split `cluster` into >= 2 parts (members Leiden leaves alone are left out), from `level` up."""
    name = fusion.new_graph_name(f"split-{cluster.key}")
    ids = list(cluster.member_ids)
    params = fusion.weight_params(cc)
    params.pop("live")
    runner = _runner(db, gds)
    try:
        runner.project_subgraphs(db, "clusters/project_members", name,
                                 {"ids": ids, "members": {m: True for m in ids}, **params})
        try:
            return _levels(db, runner, cc, cluster, name, level, None)
        finally:
            runner.drop(name)
    finally:
        runner.close()


def split_many(db: Database, cc: ConsolidationConfig, clusters: list[Cluster],
               gds: GdsConfig | None = None) -> dict[str, Split]:
    """`split` of each of these disjoint communities from level 0, from one projection; by key."""
    if not clusters:
        return {}
    name = fusion.new_graph_name(f"split-many-{clusters[0].key}")
    label = {m: f"P{i}" for i, c in enumerate(clusters) for m in c.member_ids}
    params = fusion.weight_params(cc)
    params.pop("live")
    runner = _runner(db, gds)
    try:
        runner.project_subgraphs(db, "clusters/project_parts", name, {"label": label, **params})
        try:
            # The communities are independent and each Leiden call runs on one core (concurrency 1):
            # a few calls at a time use the server's other cores; each result is the same as alone.
            # Through the client, one at a time (one client object).
            with ThreadPoolExecutor(max_workers=getattr(runner, "workers", 1)) as pool:
                found = list(pool.map(lambda ic: _levels(db, runner, cc, ic[1], name, 0, [f"P{ic[0]}"]),
                                      enumerate(clusters)))
            return {c.key: f for c, f in zip(clusters, found)}
        finally:
            runner.drop(name)
    finally:
        runner.close()


def _levels(db: Database, runner: Any, cc: ConsolidationConfig, cluster: Cluster, name: str, level: int,
            labels: list[str] | None) -> Split:
    gamma = cc.split_gamma * cc.split_gamma_step ** level
    for lvl in range(level, cc.split_max_depth + 1):
        gamma = cc.split_gamma * cc.split_gamma_step ** lvl
        found = runner.detect(db, Leiden(gamma=gamma, seed=cc.leiden_seed, node_labels=labels),
                              fusion.Projection(name, cluster.size, 0))
        parts = [Cluster(member_ids=c.member_ids, namespace=cluster.namespace, subject=cluster.subject)
                 for c in found]
        if len(parts) >= 2 or (parts and parts[0].size < cluster.size):
            return Split(parts=parts, gamma=gamma, level=lvl)
        if not parts:  # every member alone: a higher resolution cannot do better
            break
    return Split(parts=[], gamma=gamma, level=cc.split_max_depth)
