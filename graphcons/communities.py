"""Community detection over the fused graph, behind one interface.

Two implementations of `Detector`, chosen by `[consolidation] algorithm`:
- `LabelPropagation` (default): GDS weighted label propagation, bounded `max_iterations`,
  `concurrency: 1`. It has no seed, so the projection feeds nodes in id order and each
  community is named by its smallest member id (raw ids follow internal node ids).
- `Leiden`: GDS Leiden with `randomSeed = leiden_seed`, `concurrency: 1` and resolution
  `gamma = leiden_gamma`. At the modularity default (gamma 1) Leiden merges the small
  clusters graphcons cares about (3-25 members); bench/clusters.py measures gamma and the
  default is the value that recovered planted clusters best (see bench/results/).

Either way the output is canonical: clusters of >= 2 members (singletons discarded), members
sorted by id, ordered by smallest member id, each with the stable key of `Cluster`.
"""

from __future__ import annotations

from typing import Any, Protocol

from .cluster import Cluster
from .config import ConsolidationConfig
from .db import Database


class Detector(Protocol):
    name: str

    def config(self) -> dict[str, Any]: ...

    def detect(self, db: Database, graph_name: str) -> list[Cluster]: ...


def _clusters(rows: list[dict[str, Any]]) -> list[Cluster]:
    out = []
    for r in rows:
        namespaces = sorted(r["namespaces"])
        subjects = sorted(s for s in r["subjects"] if s is not None)
        out.append(Cluster(
            member_ids=tuple(r["members"]),
            namespace=namespaces[0] if len(namespaces) == 1 else "|".join(namespaces),
            subject=subjects[0] if len(subjects) == 1 else None,
        ))
    out.sort(key=lambda c: c.member_ids[0])
    return out


class LabelPropagation:
    name = "label_propagation"

    def __init__(self, max_iterations: int = 20):
        self.max_iterations = max_iterations

    def config(self) -> dict[str, Any]:
        return {"maxIterations": self.max_iterations, "relationshipWeightProperty": "weight", "concurrency": 1}

    def detect(self, db: Database, graph_name: str) -> list[Cluster]:
        return _clusters(db.run("clusters/label_propagation", graph_name=graph_name, config=self.config()))


class Leiden:
    name = "leiden"

    def __init__(self, gamma: float = 1.0, seed: int = 42, max_levels: int = 10):
        self.gamma = gamma
        self.seed = seed
        self.max_levels = max_levels

    def config(self) -> dict[str, Any]:
        return {"gamma": float(self.gamma), "randomSeed": int(self.seed), "concurrency": 1,
                "maxLevels": self.max_levels, "relationshipWeightProperty": "weight",
                "includeIntermediateCommunities": False}

    def detect(self, db: Database, graph_name: str) -> list[Cluster]:
        return _clusters(db.run("clusters/leiden", graph_name=graph_name, config=self.config()))


def make_detector(cc: ConsolidationConfig, algorithm: str | None = None) -> Detector:
    algo = algorithm or cc.algorithm
    if algo == "label_propagation":
        return LabelPropagation(cc.max_iterations)
    if algo == "leiden":
        return Leiden(cc.leiden_gamma, cc.leiden_seed)
    from .errors import ValidationError

    raise ValidationError("consolidation.algorithm", f"unknown algorithm {algo!r}; allowed: label_propagation, leiden")
