"""Deprecation and archiving, graceful retirement (seed 003 operation 4, seed 004 states).

A stale memory (older than [deprecation] min_age_days, effective_weight < max_weight,
access_count <= max_access_count, not accessed or restored since) is
- deprecated when an ACTIVE replacement exists, i.e. `(replacement)-[:SUPERSEDES]->(it)`
  (not reverted): rule "replaced";
- otherwise archived (seed 004: "decayed below the retention threshold"), when
  [deprecation] archive = true; else left alone.
Deprecated and archived memories stay addressable (get, history, provenance) and can be
restored. Nothing is ever deleted. `deprecate_memory` retires one memory by hand and
requires an active replacement, recording the SUPERSEDES edge itself.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from graphcons.core import audit
from graphcons.core.config import Config
from graphcons.core.db import Database, Tx
from graphcons.core.errors import Conflict, NotFound, ValidationError
from graphcons.core.inputs import check_key
from graphcons.core.memory import LIVE_STATUSES
from graphcons.core.time import require_aware
from graphcons.maintenance.merge import review as merge_review
from graphcons.store import justification, proposals

RULE_REPLACED = "replaced: stale and an active memory SUPERSEDES it"
RULE_ARCHIVED = "archived: stale (decayed below the retention threshold) and no active replacement"


def candidates(db: Database, cfg: Config, *, now: datetime, namespace: str | None = None) -> list[dict[str, Any]]:
    """The stale memories (of `namespace` only, when given) with their active replacement, if any."""
    require_aware(now)
    d = cfg.deprecation
    return db.run("deprecation/candidates", statuses=list(d.statuses), live=LIVE_STATUSES, max_weight=d.max_weight,
                  max_access=d.max_access_count, cutoff=now - timedelta(days=d.min_age_days), namespace=namespace)


def run(db: Database, cfg: Config, *, now: datetime, dry_run: bool = True,
        run_id: str | None = None, namespace: str | None = None) -> dict[str, Any]:
    run_id = run_id or audit.new_run_id("deprecate")
    rows = []
    for c in candidates(db, cfg, now=now, namespace=namespace):
        if c["replacement"]:
            rows.append({"id": c["id"], "status": "deprecated", "rule": RULE_REPLACED, "replacement": c["replacement"],
                         "before": c["status"], "effective_weight": c["effective_weight"]})
        elif cfg.deprecation.archive:
            rows.append({"id": c["id"], "status": "archived", "rule": RULE_ARCHIVED, "replacement": None,
                         "before": c["status"], "effective_weight": c["effective_weight"]})
    if rows and not dry_run:
        for start in range(0, len(rows), 1000):
            chunk = rows[start : start + 1000]
            def work(tx: Tx, chunk: list[dict[str, Any]] = chunk) -> None:
                done = {r["id"] for r in tx.run("deprecation/retire", rows=chunk, now=now, run_id=run_id,
                                                statuses=list(cfg.deprecation.statuses))}
                for row in chunk:
                    if row["id"] in done:
                        op = "deprecate" if row["status"] == "deprecated" else "archive"
                        targets = [row["id"]] + ([row["replacement"]] if row["replacement"] else [])
                        audit.record(tx, op, targets, run_id=run_id, at=now, rule=row["rule"],
                                     replacement=row["replacement"], effective_weight=row["effective_weight"],
                                     settings=cfg.deprecation.model_dump(),
                                     before={"status": row["before"]}, after={"status": row["status"]})
                for op in ("deprecate", "archive"):  # what rested on them is withdrawn (seed 002)
                    ids = [r["id"] for r in chunk if r["id"] in done and (r["status"] == "deprecated") == (op == "deprecate")]
                    if ids:
                        justification.premises_changed(tx, ids, op=op, now=now, run_id=run_id,
                                                       cause=f"{op}d by the deprecation job")

            db.write(work)
    report = {"job": "deprecate", "run_id": run_id, "dry_run": dry_run, "now": now.isoformat(), "namespace": namespace,
              "deprecated": [r for r in rows if r["status"] == "deprecated"],
              "archived": [r for r in rows if r["status"] == "archived"]}
    if not dry_run:
        audit.record_run(db, "deprecate", run_id, now, {"deprecated": len(report["deprecated"]),
                                                   "archived": len(report["archived"])})
    return report


def _status(db: Database, memory_id: Any) -> dict[str, Any]:
    rows = db.run("deprecation/status", id=check_key("memory_id", memory_id))
    if not rows:
        raise NotFound(f"no memory with id {memory_id!r}")
    return rows[0]


def deprecate_memory(db: Database, memory_id: str, replaced_by: str, *, now: datetime, by: str = "user",
                     dry_run: bool = True, run_id: str | None = None) -> dict[str, Any]:
    """Deprecate one memory by hand: needs an active replacement, recorded as SUPERSEDES."""
    require_aware(now)
    mem = _status(db, memory_id)
    if not isinstance(replaced_by, str) or not replaced_by.strip():
        raise ValidationError("replaced_by", "deprecation needs an active replacement; give its id "
                                             "(or let the deprecate job archive the memory)")
    rep = _status(db, replaced_by)
    if replaced_by == memory_id:
        raise ValidationError("replaced_by", "a memory cannot replace itself")
    if rep["status"] != "active":
        raise Conflict(f"replacement {replaced_by!r} is {rep['status']}, not active")
    if rep["namespace"] != mem["namespace"]:
        raise Conflict(f"replacement {replaced_by!r} is in namespace {rep['namespace']!r}, not {mem['namespace']!r}")
    if mem["status"] == "deprecated":
        return {"id": memory_id, "status": "deprecated", "changed": False}
    if mem["status"] not in ("proposed", "active", "consolidated"):
        raise Conflict(f"memory {memory_id!r} is {mem['status']}; restore it first")
    out = {"id": memory_id, "status": "deprecated", "replaced_by": replaced_by, "before": mem["status"],
           "changed": True, "dry_run": dry_run}
    if dry_run:
        return out
    run_id = run_id or audit.new_run_id("deprecate")
    def work(tx: Tx) -> None:
        tx.run("deprecation/supersede", id=memory_id, replacement=replaced_by, now=now, run_id=run_id, by=by)
        tx.run("deprecation/retire", rows=[{"id": memory_id, "status": "deprecated", "rule": "manual: replaced",
                                            "replacement": replaced_by}],
               now=now, run_id=run_id, statuses=[mem["status"]])
        audit.record(tx, "deprecate", [memory_id, replaced_by], run_id=run_id, at=now, by=by,
                     rule="manual: replaced", replacement=replaced_by,
                     before={"status": mem["status"]}, after={"status": "deprecated"})
        justification.premises_changed(tx, [memory_id], op="deprecate", now=now, run_id=run_id,
                                       cause=f"{memory_id} deprecated by {by}, replaced by {replaced_by}")

    db.write(work)
    return out


def retire_memory(db: Database, memory_id: str, *, reason: str, now: datetime, by: str = "user") -> dict[str, Any]:
    """Take one memory out of use with no replacement (a LangGraph store's delete, issue 42): it is
    archived, kept with its versions and links, no longer retrieved, and `restore` brings it back."""
    require_aware(now)
    if not isinstance(reason, str) or not reason.strip():
        raise ValidationError("reason", "must be a non-empty string")
    mem = _status(db, memory_id)
    if mem["status"] in ("deprecated", "archived"):
        return {"id": memory_id, "status": mem["status"], "changed": False}
    run_id = audit.new_run_id("retire")
    rule = f"manual: {reason}"

    def work(tx: Tx) -> None:
        tx.run("deprecation/retire", rows=[{"id": memory_id, "status": "archived", "rule": rule, "replacement": None}],
               now=now, run_id=run_id, statuses=[mem["status"]])
        audit.record(tx, "retire", [memory_id], run_id=run_id, at=now, by=by, rule=rule,
                     before={"status": mem["status"]}, after={"status": "archived"})
        justification.premises_changed(tx, [memory_id], op="retire", now=now, run_id=run_id,
                                       cause=f"{memory_id} retired by {by}: {reason}")

    db.write(work)
    return {"id": memory_id, "status": "archived", "changed": True, "before": mem["status"]}


def restore(db: Database, memory_id: str, *, now: datetime, by: str = "user", run_id: str | None = None) -> dict[str, Any]:
    """Bring a deprecated or archived memory back. A merged loser is restored by reverting its merge."""
    require_aware(now)
    mem = _status(db, memory_id)
    if mem["status"] not in ("deprecated", "archived"):
        return {"id": memory_id, "status": mem["status"], "changed": False}
    if mem["status"] == "deprecated" and mem["deprecated_reason"] == "merged":
        edge = db.run("deprecation/merge_edge", id=memory_id)
        if edge:
            merge = proposals.get(db, edge[0]["proposal"], {merge_review.KIND: merge_review.MergePayload})
            out = merge_review.revert(merge, proposals.Review(db=db, by=by, now=now, reason=f"restore {memory_id}"))
            return {"id": memory_id, "status": _status(db, memory_id)["status"], "changed": True,
                    "via": "merge revert", "proposal": edge[0]["proposal"], "winner": out.winner}
    run_id = run_id or audit.new_run_id("restore")
    def restore_work(tx: Tx) -> dict[str, Any]:
        row = tx.run("deprecation/restore", id=memory_id, now=now, run_id=run_id)[0]
        audit.record(tx, "restore", [memory_id], run_id=run_id, at=now, by=by, rule="restore",
                     superseding_edges_reverted=row["edges"], before={"status": row["was"]},
                     after={"status": row["status"]})
        justification.premises_restored(tx, [memory_id], now=now, run_id=run_id, cause=f"{memory_id} restored by {by}")
        return row

    row = db.write(restore_work)
    return {"id": memory_id, "status": row["status"], "changed": True, "before": row["was"]}
