"""The cluster scan: fused projection -> communities -> value gate -> report (dry run).

`scan` proposes nothing; it writes its audit record, one (:ConsolidationRun) node (when, settings,
counts, duration, warnings) and the matching (:Audit {op: 'cluster_scan'}) entry, and each scanned
memory's community (retrieval's prior). A dry run (`dry_run=True`: consolidate's dry run, a job route's
`dry_run: true`) writes none of these (issue 59; principle 3): its report is its only output. Its
report lists every gate decision and `consolidation_due`, the accepted clusters no live
insight summarises yet (an insight written by synthesis carries `cluster_key`).

Red flags of seed 001 become warnings: every memory a singleton (the similarity floor is
too high or the signals too sparse) and one giant cluster swallowing most memories.
"""

from __future__ import annotations

import gc
import json
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Iterator

from graphcons.consolidation import communities, fusion, placement
from graphcons.consolidation.cluster import Cluster
from graphcons.consolidation.gate import GateDecision, gate
from graphcons.core import audit
from graphcons.core.config import Config, ConsolidationConfig, GdsConfig
from graphcons.core.db import Database, Tx
from graphcons.core.errors import ValidationError
from graphcons.core.memory import LIVE_STATUSES
from graphcons.core.time import utcnow
from graphcons.store import linker

GIANT_SHARE = 0.5  # a cluster holding more than this share of the memories is a red flag


@dataclass
class ScanReport:
    run_id: str
    algorithm: str
    decisions: list[GateDecision]
    consolidation_due: int
    warnings: list[str]
    nodes: int = 0
    relationships: int = 0
    clusters: list[Cluster] = field(default_factory=list)  # as detected (before any split)
    namespace: str | None = None
    subjects: list[str] | None = None  # a triggered scan of these subjects of `namespace` (closed under edges)
    dry_run: bool = False  # True: the scan wrote nothing (no run record, audit or communities)
    at: datetime | None = None
    timings: dict[str, float] = field(default_factory=dict)  # seconds: projection, detection, gate, total
    detector_config: dict[str, Any] = field(default_factory=dict)  # as run (Leiden: the derived gamma)

    @property
    def accepted(self) -> list[GateDecision]:
        return [d for d in self.decisions if d.accepted]

    @property
    def rejected(self) -> list[GateDecision]:
        return [d for d in self.decisions if not d.accepted]

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "at": self.at.isoformat() if self.at else None,
            "algorithm": self.algorithm,
            "namespace": self.namespace,
            "subjects": None if self.subjects is None else list(self.subjects),
            "dry_run": self.dry_run,
            "nodes": self.nodes,
            "relationships": self.relationships,
            "clusters": len(self.clusters),
            "accepted": len(self.accepted),
            "rejected": len(self.rejected),
            "consolidation_due": self.consolidation_due,
            "warnings": list(self.warnings),
            "timings": dict(self.timings),
            "detector": dict(self.detector_config),
            "decisions": [d.to_dict() for d in self.decisions],
        }


def detect(db: Database, cc: ConsolidationConfig, *, namespace: str | None = None, algorithm: str | None = None,
           run_id: str | None = None, gds: GdsConfig | None = None
           ) -> tuple[fusion.Projection, list[Cluster], dict[str, float]]:
    """Project the fused graph, run the configured detector, drop the projection."""
    proj, clusters, _members, timings = detect_members(db, cc, namespace=namespace, algorithm=algorithm,
                                                      run_id=run_id, with_edges=False, gds=gds)
    return proj, clusters, timings


def detect_members(db: Database, cc: ConsolidationConfig, *, namespace: str | None = None,
                   subjects: list[str] | None = None, algorithm: str | None = None, run_id: str | None = None, with_edges: bool = True,
                   gds: GdsConfig | None = None
                   ) -> tuple[fusion.Projection, list[Cluster], dict[str, dict[str, Any]], dict[str, float]]:
    """`detect`, plus what the gate needs to know about each member (read in the same query) and,
    with `with_edges`, the projected edges as `proj.edges` (the gate's figures: figures.py)."""
    detector = communities.make_detector(cc, algorithm)
    name = fusion.new_graph_name(run_id)
    if gds is not None and gds.client:  # through the graphdatascience client: the plugin or a session
        return _detect_through_client(db, cc, gds, detector, name, namespace=namespace, subjects=subjects,
                                      with_edges=with_edges)
    db.gds_version()  # a clear message with install instructions when GDS is missing
    t0 = time.perf_counter()
    proj = fusion.project(db, cc, name, namespace=namespace, subjects=subjects, with_edges=with_edges)
    t1 = time.perf_counter()
    try:
        clusters, members = detector.detect_members(db, proj) if proj.nodes else ([], {})
    finally:
        fusion.drop(db, name)
    t2 = time.perf_counter()
    return proj, clusters, members, {"projection": t1 - t0, "detection": t2 - t1}


def _detect_through_client(db: Database, cc: ConsolidationConfig, gds: GdsConfig, detector: communities.Detector,
                           name: str, *, namespace: str | None, subjects: list[str] | None, with_edges: bool
                           ) -> tuple[fusion.Projection, list[Cluster], dict[str, dict[str, Any]], dict[str, float]]:
    client = placement.connect(db, gds)
    try:
        t0 = time.perf_counter()
        proj = client.project(db, cc, name, namespace=namespace, subjects=subjects, with_edges=with_edges)
        t1 = time.perf_counter()
        try:
            clusters, members = client.detect_members(db, detector, proj) if proj.nodes else ([], {})
        finally:
            client.drop(name)
        t2 = time.perf_counter()
    finally:
        client.close()
    return proj, clusters, members, {"projection": t1 - t0, "detection": t2 - t1}


def red_flags(nodes: int, clusters: list[Cluster], min_size: int, max_size: int) -> list[str]:
    warnings = []
    if nodes >= min_size and not clusters:
        warnings.append(f"red flag: every one of the {nodes} memories is a singleton; the similarity floor may be "
                        "too high or the memories share no links or co-access (seed 001)")
    if clusters and nodes >= 2 * min_size:
        biggest = max(clusters, key=lambda c: c.size)
        if biggest.size > max_size and biggest.size > GIANT_SHARE * nodes:
            warnings.append(f"red flag: one giant cluster {biggest.key} holds {biggest.size} of {nodes} memories; "
                            "the signals glue unrelated memories together (raise sim_floor, lower weights) (seed 001)")
    return warnings


def scan(db: Database, cfg: Config, *, now: datetime, namespace: str | None = None,
         subjects: list[str] | None = None, algorithm: str | None = None, dry_run: bool = False) -> ScanReport:
    """Run one cluster scan; writes its :ConsolidationRun and audit record, and each scanned memory's
    community (derived data for retrieval's community prior, never a proposal); a dry run writes
    nothing (issue 59: it recorded a run marked `dry_run: false` and an audit). `subjects` scans
    only those subjects of `namespace`; they must be closed under the fused graph's edges
    (graphcons.consolidation.closure) for its clusters to be a full pass's."""
    cc = cfg.consolidation
    if namespace is not None and (not isinstance(namespace, str) or not namespace.strip()):
        raise ValidationError("namespace", "must be a non-empty string or None")
    if subjects is not None:
        if namespace is None:
            raise ValidationError("subjects", "needs a namespace: subjects are scanned within one namespace")
        if not isinstance(subjects, list) or not subjects or not all(isinstance(x, str) and x for x in subjects):
            raise ValidationError("subjects", "must be a non-empty list of subjects or None")
        subjects = sorted(set(subjects))
    detector = communities.make_detector(cc, algorithm)
    linker.link_pending(db, cfg)  # a put's deferred SIMILAR edges first: no cluster misses one (even a dry run's)
    started = now
    run_id = audit.new_run_id("scan")
    t0 = time.perf_counter()
    with _no_cyclic_gc():
        proj, clusters, members, timings = detect_members(db, cc, namespace=namespace, subjects=subjects,
                                                          algorithm=detector.name,
                                                          run_id=run_id, gds=cfg.gds)
        detector_config = detector.config(proj)
        t1 = time.perf_counter()
        decisions = gate(db, cc, clusters, members=members, edges=proj.edges, gds=cfg.gds)
        timings["gate"] = time.perf_counter() - t1
    accepted_keys = [d.key for d in decisions if d.accepted]
    summarised = set(db.run("gate/summarised", keys=accepted_keys, live=LIVE_STATUSES)[0]["keys"]) \
        if accepted_keys else set()
    due = sum(1 for k in accepted_keys if k not in summarised)
    warnings = red_flags(proj.nodes, clusters, cc.min_size, cc.max_size)
    timings["total"] = time.perf_counter() - t0
    report = ScanReport(run_id=run_id, algorithm=detector.name, decisions=decisions, consolidation_due=due,
                        warnings=warnings, nodes=proj.nodes, relationships=proj.relationships // 2,
                        clusters=clusters, namespace=namespace, subjects=subjects, dry_run=dry_run, at=started,
                        timings={k: round(v, 4) for k, v in timings.items()}, detector_config=detector_config)
    if not dry_run:
        _record(db, cfg, report)
        _store_communities(db, report)
    return report


def _store_communities(db: Database, report: ScanReport) -> None:
    """The scan's communities, accepted or not, as each member's `community` (issue 39: the
    cluster hypothesis as a recall prior, `[retrieval] community_weight`); members of the scope
    in no community lose an earlier scan's. Derived data, recomputed by the next scan; the scan's
    audit record counts its clusters."""
    rows = [{"key": c.key, "ids": list(c.member_ids)} for c in report.clusters]
    for i in range(0, len(rows), COMMUNITY_BATCH):  # one transaction per batch: a 1M scan is not one
        db.write(lambda tx, part=rows[i:i + COMMUNITY_BATCH]:
                 tx.run("clusters/communities_store", communities=part, run=report.run_id))
    clear, scope = (("clusters/communities_clear", {}) if report.namespace is None else
                    ("clusters/communities_clear_scope", {"namespace": report.namespace, "subjects": report.subjects}))
    while db.write(lambda tx: tx.run(clear, run=report.run_id, batch=CLEAR_BATCH, **scope))[0]["cleared"]:
        pass


COMMUNITY_BATCH = 2_000  # communities per write transaction
CLEAR_BATCH = 20_000  # stale communities cleared per write transaction


@contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """A scan builds millions of small dicts, lists and tuples that live until it ends; Python's
    cyclic collector would walk all of them again at every full collection (4-5 s of a 1M-memory
    scan). Reference counting still frees what the scan drops; cycles wait until it ends."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _record(db: Database, cfg: Config, report: ScanReport) -> None:
    settings = {"consolidation": cfg.consolidation.model_dump(mode="json"), "detector": report.detector_config,
                "similarity_floor": cfg.consolidation.similarity_floor}
    counts = {"nodes": report.nodes, "relationships": report.relationships, "clusters": len(report.clusters),
              "decisions": len(report.decisions), "accepted": len(report.accepted),
              "rejected": len(report.rejected), "consolidation_due": report.consolidation_due}
    def record(tx: Tx) -> None:
        tx.run("clusters/run_record", id=report.run_id, at=report.at, finished_at=utcnow(),
               duration_ms=int(report.timings["total"] * 1000), algorithm=report.algorithm,
               dry_run=report.dry_run, namespace=report.namespace, subjects=report.subjects,
               settings=json.dumps(settings, sort_keys=True), accepted_keys=[d.key for d in report.accepted],
               warnings=report.warnings, **counts)
        audit.record(tx, "cluster_scan", [d.key for d in report.accepted], run_id=report.run_id, at=report.at,
                     algorithm=report.algorithm, namespace=report.namespace, subjects=report.subjects,
                     warnings=report.warnings, **counts)

    db.write(record)
