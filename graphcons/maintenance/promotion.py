"""Promotion, proposed -> active (seed 003, deferred operation 3).

Rules, checked in this order; the first that fires is recorded on the memory
(`promotion_rule`) and in the audit record:

    evidence       >= [promotion] min_sources distinct sources (3)          "direct promotion"
    weighted       >= min_sources_weighted (2) sources and effective_weight >= min_weight (0.5)
    architectural  kind in direct_kinds (["decision"]): ADRs bypass the gates
    time           older than min_age_hours (24) and no open CONFLICTS_WITH link

Evidence counts distinct sources only (m.sources): one source repeating a claim N times
is one source (principle 10). Age is measured against the `now` passed in. With `namespace`
the run reads and promotes only that namespace's memories.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Callable

from graphcons.core import audit
from graphcons.core.config import Config, PromotionConfig
from graphcons.core.db import Database, Tx
from graphcons.core.time import require_aware

PAGE = 1000


def rule_for(mem: dict[str, Any], now: datetime, cfg: PromotionConfig) -> str | None:
    """The first promotion rule this proposed memory meets, or None."""
    sources = int(mem.get("distinct_sources") or 0)
    weight = float(mem.get("effective_weight") or 0.0)
    if sources >= cfg.min_sources:
        return f"evidence: {sources} distinct sources >= {cfg.min_sources}"
    if sources >= cfg.min_sources_weighted and weight >= cfg.min_weight:
        return f"weighted: {sources} distinct sources >= {cfg.min_sources_weighted} and weight {weight:.3f} >= {cfg.min_weight}"
    if mem.get("kind") in cfg.direct_kinds:
        return f"architectural: kind {mem.get('kind')!r} promotes directly"
    created = mem.get("created_at")
    if cfg.time_based and created is not None and now - created >= timedelta(hours=cfg.min_age_hours) \
            and not mem.get("open_conflicts"):
        return f"time: older than {cfg.min_age_hours:g} h with no open conflict"
    return None


def run(db: Database, cfg: Config, *, now: datetime, dry_run: bool = True, run_id: str | None = None,
        progress: Callable[[int], None] | None = None, namespace: str | None = None) -> dict[str, Any]:
    require_aware(now)
    run_id = run_id or audit.new_run_id("promote")
    promoted, kept = [], 0
    after = None
    while True:
        rows = db.run("promotion/page", after=after, limit=PAGE, namespace=namespace)
        if not rows:
            break
        after = rows[-1]["id"]
        batch = []
        for mem in rows:
            rule = rule_for(mem, now, cfg.promotion)
            if rule is None:
                kept += 1
            else:
                batch.append({"id": mem["id"], "rule": rule})
        promoted.extend(batch)
        if batch and not dry_run:
            def work(tx: Tx, batch: list[dict[str, Any]] = batch) -> None:
                done = {r["id"] for r in tx.run("promotion/promote", rows=batch, now=now, run_id=run_id)}
                for row in batch:
                    if row["id"] in done:
                        audit.record(tx, "promote", [row["id"]], run_id=run_id, at=now, rule=row["rule"],
                                     before={"status": "proposed"}, after={"status": "active"})

            db.write(work)
        if progress:
            progress(len(rows))
    report = {"job": "promote", "run_id": run_id, "dry_run": dry_run, "now": now.isoformat(), "namespace": namespace,
              "promoted": promoted, "still_proposed": kept}
    if not dry_run:
        audit.record_run(db, "promote", run_id, now, {"promoted": len(promoted), "still_proposed": kept})
    return report
