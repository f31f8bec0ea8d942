"""`run_battery`: refuse without room under today's synthesis cap, seed, run every seed's checks
in order, archive the scratch namespace, and report what the run spent."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

from graphcons.battery.base import (EPISTEMIC_NAMESPACE, SYNTHESES_PER_RUN, BatteryResults, BudgetSpent, Outcome,
                                    run_check)
from graphcons.battery.consolidation import consolidation_checks, seed
from graphcons.battery.epistemics import epistemic_checks
from graphcons.battery.reflection import reflection_checks
from graphcons.consolidation.budget import used_today
from graphcons.core import audit
from graphcons.core.memory import LIVE_STATUSES
from graphcons.core.time import utcnow
from graphcons.store import justification


def run_battery(g: Any, *, now: datetime | None = None) -> BatteryResults:
    now = now or utcnow()
    results = BatteryResults()
    results.used_before, results.daily_cap = used_today(g.db, now), g.config.consolidation.daily_cap
    left = results.daily_cap - results.used_before
    if left < SYNTHESES_PER_RUN:
        raise BudgetSpent(
            f"the benchmark starts up to {SYNTHESES_PER_RUN} syntheses, which count toward [consolidation] "
            f"daily_cap, and only {max(left, 0)} are left today ({results.used_before} of {results.daily_cap} "
            "used); nothing was run. Run it after 00:00 UTC, raise daily_cap (graphcons.toml or "
            "GRAPHCONS__CONSOLIDATION__DAILY_CAP), or point it at a scratch database")
    seed(g)

    def check(name: str, fn: Callable[[], Outcome]) -> None:
        results.append(run_check(name, fn))

    consolidation_checks(g, now, check)
    reflection_checks(g, now, check)
    try:
        epistemic_checks(g, now, check)
    finally:
        results.archived = archive_scratch(g, now)
    results.spent = used_today(g.db, now) - results.used_before
    return results


def archive_scratch(g: Any, now: datetime) -> int:
    """Archive every live memory of the scratch namespace (this run's fresh memories and insights):
    one transaction, audited, each restorable (`graphcons restore ID`); insights resting on them
    are re-derived in the same transaction, as for any archive. Returns how many were archived."""
    run_id = audit.new_run_id("benchmark_archive")
    with g.db.transaction() as tx:
        ids = [r["id"] for r in tx.run("battery/scratch_live", namespace=EPISTEMIC_NAMESPACE,
                                       live=list(LIVE_STATUSES))]
        if not ids:
            return 0
        tx.run("deprecation/retire", rows=[{"id": i, "status": "archived", "rule": "benchmark_scratch",
                                           "replacement": None} for i in ids],
               now=now, run_id=run_id, statuses=list(LIVE_STATUSES))
        justification.premises_changed(tx, ids, op="archive", cause="benchmark scratch namespace", now=now,
                                       run_id=run_id)
        audit.record(tx, "benchmark_archive", ids, run_id=run_id, at=now, namespace=EPISTEMIC_NAMESPACE,
                     archived=len(ids))
    return len(ids)
