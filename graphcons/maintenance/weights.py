"""Weights: the one place where a memory's effective weight is computed.

Five components, each in [0, 1] (seed 003, "modelo composto de 5 componentes"):

    manual      m.weight_manual       the importance a person gave it (admission: importance)
    confidence  m.weight_confidence   how sure the writer was
    usage       m.weight_usage        1 - exp(-access_count / usage_saturation)
    feedback    m.weight_feedback     explicit feedback (0.5 = none yet)
    decay       m.weight_decay        Ebbinghaus retention R = exp(-t / S)

    effective_weight = (c_manual*manual + c_confidence*confidence + c_usage*usage
                        + c_feedback*feedback) / (c_manual + c_confidence + c_usage + c_feedback)
                       * decay

The coefficients c_* are `[weights] manual, confidence, usage, feedback`. Decay multiplies
rather than adds, so a memory nobody uses fades towards 0 whatever its other components.

Ebbinghaus decay: t = days since the last access (or since creation, never accessed);
S = stability in days, which GROWS with each access (reinforcement):

    S = min(max_stability_days, base_stability_days * (1 + reinforcement * access_count))

so after the same idle time a memory used more often keeps a higher retention. (MemoryBank
wrote `exp(-t / 5*S)`, i.e. exp(-t*S/5): the stronger a memory, the faster it decayed.
Here S is always a divisor; tests/test_weights.py pins the direction.)

`recompute` is a batched pass over all live memories (paged by id); it writes only the
memories whose values changed, each batch with its own audit record (before/after per
memory), so running it twice with the same `now` changes nothing the second time.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any, Callable

from graphcons.core import audit
from graphcons.core.config import Config, WeightsConfig
from graphcons.core.db import Database, Tx
from graphcons.core.memory import LIVE_STATUSES
from graphcons.core.time import require_aware

RULE = "effective = weighted_mean(manual, confidence, usage, feedback) * exp(-t/S); S = S0*(1 + r*accesses)"


def usage_component(access_count: int, cfg: WeightsConfig) -> float:
    return 1.0 - math.exp(-max(0, access_count) / cfg.usage_saturation)


def stability_days(access_count: int, cfg: WeightsConfig) -> float:
    """S grows with every access: more use, slower forgetting."""
    s = cfg.base_stability_days * (1.0 + cfg.reinforcement * max(0, access_count))
    return min(cfg.max_stability_days, s)


def retention(elapsed_days: float, stability: float) -> float:
    """Ebbinghaus: R = e^(-t/S), with t and S in days; t < 0 counts as 0."""
    return math.exp(-max(0.0, elapsed_days) / stability)


def effective_weight(manual: float, confidence: float, usage: float, feedback: float, decay: float,
                     cfg: WeightsConfig) -> float:
    """The formula, written once (see the module docstring)."""
    coef = (cfg.manual, cfg.confidence, cfg.usage, cfg.feedback)
    total = sum(coef)
    base = (sum(c * v for c, v in zip(coef, (manual, confidence, usage, feedback))) / total) if total else 0.0
    return max(0.0, min(1.0, base * decay))


def compute(props: dict[str, Any], now: datetime, cfg: WeightsConfig) -> dict[str, float]:
    """New usage, stability, decay and effective weight of one memory at time `now`."""
    n = int(props.get("access_count") or 0)
    ref = props.get("last_accessed") or props.get("created_at")
    elapsed = (now - ref).total_seconds() / 86400.0 if ref is not None else 0.0
    s = stability_days(n, cfg)
    decay = retention(elapsed, s)
    usage = usage_component(n, cfg)

    def comp(key: str, default: float) -> float:
        v = props.get(key)
        return float(default if v is None else v)

    eff = effective_weight(comp("weight_manual", 0.5), comp("weight_confidence", 0.5), usage,
                           comp("weight_feedback", 0.5), decay, cfg)
    return {"weight_usage": round(usage, 12), "stability": round(s, 12),
            "weight_decay": round(decay, 12), "effective_weight": round(eff, 12)}


def _changed(old: dict[str, Any], new: dict[str, float], tol: float) -> bool:
    for key, value in new.items():
        prev = old.get(key)
        if prev is None or abs(float(prev) - value) > tol:
            return True
    return False


def recompute(db: Database, cfg: Config, *, now: datetime, dry_run: bool = True, run_id: str | None = None,
              progress: Callable[[int], None] | None = None, job: str = "weights") -> dict[str, Any]:
    """Recompute every live memory's weights at `now`, in pages; audited per written batch."""
    require_aware(now)
    wcfg = cfg.weights
    run_id = run_id or audit.new_run_id(job)
    after: str | None = None
    scanned = changed = 0
    below = 0
    squared_change = 0.0  # sum of (new - old effective weight)^2: the run's weight stability
    sample: list[dict[str, Any]] = []
    while True:
        rows = db.run("weights/page", live=list(LIVE_STATUSES), after=after, limit=wcfg.batch_size)
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
    report = {"job": job, "run_id": run_id, "dry_run": dry_run, "now": now.isoformat(), "scanned": scanned,
              "changed": changed, "below_deprecation_weight": below, "sample": sample,
              "weight_change_variance": round(squared_change / scanned, 12) if scanned else 0.0}
    if not dry_run:
        audit.record_run(db, job, run_id, now, report)
    return report


def count_live(db: Database) -> int:
    return db.run("weights/count_live", live=list(LIVE_STATUSES))[0]["n"]
