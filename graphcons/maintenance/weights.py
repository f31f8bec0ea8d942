"""The weights job: recompute every live memory's weights at `now` with the one formula
(graphcons.core.weights, where the five components and Ebbinghaus decay are explained).

`recompute` is a batched pass over all live memories, or one namespace's (paged by id); it writes only the
memories whose values changed, each batch with its own audit record (before/after per
memory), so running it twice with the same `now` changes nothing the second time.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

from graphcons.core import audit
from graphcons.core.config import Config
from graphcons.core.db import Database, Tx
from graphcons.core.memory import LIVE_STATUSES
from graphcons.core.time import require_aware
from graphcons.core.weights import RULE, compute, effective_weight, retention, stability_days, usage_component

__all__ = ["RULE", "compute", "count_live", "effective_weight", "recompute", "retention", "stability_days",
           "usage_component"]


def _changed(old: dict[str, Any], new: dict[str, float], tol: float) -> bool:
    for key, value in new.items():
        prev = old.get(key)
        if prev is None or abs(float(prev) - value) > tol:
            return True
    return False


def recompute(db: Database, cfg: Config, *, now: datetime, dry_run: bool = True, run_id: str | None = None,
              progress: Callable[[int], None] | None = None, job: str = "weights",
              namespace: str | None = None) -> dict[str, Any]:
    """Recompute every live memory's weights (of `namespace` only, when given) at `now`, in pages;
    audited per written batch."""
    require_aware(now)
    wcfg = cfg.weights
    run_id = run_id or audit.new_run_id(job)
    after: str | None = None
    scanned = changed = 0
    below = 0
    squared_change = 0.0  # sum of (new - old effective weight)^2: the run's weight stability
    sample: list[dict[str, Any]] = []
    while True:
        rows = db.run("weights/page", live=LIVE_STATUSES, after=after, limit=wcfg.batch_size,
                      namespace=namespace)
        if not rows:
            break
        after = rows[-1]["id"]
        updates, diffs = [], {}
        for row in rows:
            new = compute(row, now, wcfg)
            squared_change += (new["effective_weight"] - float(row.get("effective_weight") or 0.0)) ** 2
            if new["effective_weight"] < cfg.deprecation.max_weight:
                below += 1
            if _changed(row, new, wcfg.tolerance):
                updates.append({"id": row["id"], **new})
                diffs[row["id"]] = {"before": row.get("effective_weight"), "after": new["effective_weight"],
                                    "decay_before": row.get("weight_decay"), "decay_after": new["weight_decay"]}
        scanned += len(rows)
        changed += len(updates)
        if len(sample) < 10:
            sample.extend({"id": i, **d} for i, d in list(diffs.items())[: 10 - len(sample)])
        if updates and not dry_run:
            def work(tx: Tx, updates: list[dict[str, Any]] = updates, diffs: dict[str, Any] = diffs) -> None:
                tx.run("weights/update", rows=updates, now=now, run_id=run_id)
                audit.record(tx, "weights", sorted(diffs), run_id=run_id, at=now, rule=RULE, job=job,
                             settings=wcfg.model_dump(), changes=diffs)

            db.write(work)
        if progress:
            progress(len(rows))
    report = {"job": job, "run_id": run_id, "dry_run": dry_run, "now": now.isoformat(), "namespace": namespace,
              "scanned": scanned,
              "changed": changed, "below_deprecation_weight": below, "sample": sample,
              "weight_change_variance": round(squared_change / scanned, 12) if scanned else 0.0}
    if not dry_run:
        audit.record_run(db, job, run_id, now, report)
    return report


def count_live(db: Database) -> int:
    return db.run("weights/count_live", live=LIVE_STATUSES)[0]["n"]
