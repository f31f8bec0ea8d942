"""Health of the store (seed 003): figures, quality metrics with their targets, last runs.

Figures: active, proposed, average weight of active memories, duplicate candidates
(pending merge proposals, plus the pairs a fresh dry-run scan would add with `scan=True`), stale candidates
(what `deprecate` would retire now), open conflicts, the last run of each job, and the vector
index's state and probe latency (graphcons.maintenance.vector_index).

Warnings (issue 29): the merge review queue and the open conflicts, each against the live
memories (`[health]`: a share of them, and a minimum count below which nothing is a backlog),
with what the last merge run added to them; overdue and failed jobs.

Quality metrics, each with seed 003's target beside it:
    duplicate_rate   (deprecated_by_merge + memories pending merge proposals would retire)
                     / total memories                              < 5 %
    promotion_rate   promoted / (promoted + still proposed)        > 60 %
    stale_ratio      (deprecated + archived) / active              < 20 %
    merge_false_rate (rejected + reverted) / reviewed merges       < 2 %   (merge accuracy)
    insight_quality  rated-useful insights / rated insights        > 70 %
    weight_stability mean squared change of effective weights per weights run: decreasing
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graphcons.core import audit, schedule
from graphcons.core.config import Config, HealthConfig, JobConfig
from graphcons.core.db import Database
from graphcons.core.memory import LIVE_STATUSES
from graphcons.core.time import require_aware
from graphcons.maintenance import deprecation, feedback, vector_index
from graphcons.maintenance.merge import job as merge
from graphcons.store import jobruns

TARGETS = {
    "duplicate_rate": ("<", 0.05),
    "promotion_rate": (">", 0.60),
    "stale_ratio": ("<", 0.20),
    "merge_false_rate": ("<", 0.02),
    "insight_quality": (">", 0.70),
}
JOBS = ("merge", "weights", "decay", "promote", "deprecate", "consolidate", "precompute", "reflect")


def weight_stability(db: Database) -> dict[str, Any]:
    """Mean squared change of effective weights per weights run, newest first; seed 003 wants it
    decreasing (a store whose weights keep swinging has a formula or a signal out of tune)."""
    runs = [a for a in audit.read(db, op="maintenance_run", limit=200)
            if a["details"].get("job") in ("weights", "decay")][:5]
    values = [a["details"]["summary"].get("weight_change_variance") for a in runs]
    values = [v for v in values if v is not None]
    ok = None if len(values) < 2 else values[0] <= values[1]
    return {"value": values[0] if values else None, "recent": values, "target": "decreasing", "ok": ok}


def _ratio(num: float, den: float) -> float | None:
    return None if not den else num / den


def health(db: Database, cfg: Config, *, now: datetime, scan: bool = False) -> dict[str, Any]:
    require_aware(now)
    f = db.run("health/figures", live=LIVE_STATUSES)[0]
    stale = deprecation.candidates(db, cfg, now=now)
    if scan:
        dup = merge.run(db, cfg, now=now, dry_run=True)
        duplicates = f["merge_pending"] + len(dup.proposed) + len(dup.applied)  # queued + newly found
    else:
        duplicates = f["merge_pending"]
    jobs, warnings = job_runs(db, cfg, now)
    last = last_runs(db, jobs)
    added = last_merge_added(db)
    warnings = backlog_warnings(f, added, cfg.health) + warnings
    reviewed = f["merge_approved"] + f["merge_rejected"] + f["merge_reverted"]
    metrics = {
        # merged or still waiting for a reviewer: a queue nobody works is no cleaner store (issue 29)
        "duplicate_rate": _ratio(f["deprecated_by_merge"] + f["pending_duplicates"], f["total"]),
        "promotion_rate": _ratio(f["promoted"], f["promoted"] + f["proposed"]),
        "stale_ratio": _ratio(f["deprecated"] + f["archived"], f["active"]),
        "merge_false_rate": _ratio(f["merge_rejected"] + f["merge_reverted"], reviewed),
        "insight_quality": feedback.insight_quality(db),
    }
    quality = {}
    for name, value in metrics.items():
        op, target = TARGETS[name]
        ok = None if value is None else (value < target if op == "<" else value > target)
        quality[name] = {"value": value, "target": f"{op} {target:g}", "ok": ok}
    quality["duplicate_rate"].update(merged=f["deprecated_by_merge"], pending=f["pending_duplicates"])
    quality["weight_stability"] = weight_stability(db)
    return {
        "now": now.isoformat(),
        "figures": {
            "total": f["total"], "live": f["live"], "active": f["active"], "proposed": f["proposed"],
            "consolidated": f["consolidated"], "deprecated": f["deprecated"], "archived": f["archived"],
            "avg_weight": f["avg_weight"], "duplicate_candidates": duplicates,
            "duplicate_candidates_source": "pending proposals + dry-run scan" if scan else "pending merge proposals",
            "stale_candidates": len(stale), "open_conflicts": f["open_conflicts"],
            "open_conflicts_added_by_last_merge": added["conflicts"],
            "merge_proposals": {"pending": f["merge_pending"], "added_by_last_merge": added["proposed"],
                                "approved": f["merge_approved"],
                                "auto_applied": f["merge_auto_applied"], "rejected": f["merge_rejected"],
                                "reverted": f["merge_reverted"]},
        },
        "last_runs": {job: run["at"] for job, run in last.items()},
        "last_status": {job: run["status"] for job, run in last.items()},
        "jobs": jobs,
        "warnings": warnings,
        "quality": quality,
        "vector_index": vector_index.status(db),
    }


def last_runs(db: Database, jobs: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every job's last run, however it was started: a worker's JobRun (status ok | failed | running |
    interrupted | abandoned) or a run by hand (CLI, API), which records only its audit on completion
    (status ok). The newer one wins; the same run seen both ways keeps the worker's status (issue 41:
    runs by hand were missing, and a merge by hand had no status)."""
    direct = {r["job"]: r for r in db.run("health/last_runs")}
    out = {}
    for job in sorted(set(JOBS) | set(direct)):
        by_hand = direct.get(job)
        worker = (jobs.get(job) or {}).get("last_run")
        if worker and worker.get("trigger") == "manual --now":  # a decision time given by hand, maybe
            worker = None  # in the future: not the job's last run (as health/last_runs, jobs/worker.MANUAL_AT)
        runs = [{"at": r["at"], "status": "ok", "run_id": r["run_id"], "via": "by hand"} for r in [by_hand] if r]
        runs += [{"at": w["now"], "status": w["status"], "run_id": w["run_id"], "via": "worker"} for w in [worker] if w]
        if len(runs) == 2 and runs[0]["run_id"] == runs[1]["run_id"]:
            runs = runs[1:]
        # newest decision time first; at equal times the worker's record, which knows the status
        runs.sort(key=lambda r: (r["at"], r["via"] == "worker"), reverse=True)
        out[job] = runs[0] if runs else {"at": None, "status": None, "run_id": None, "via": None}
    return out


def last_merge_added(db: Database) -> dict[str, int | None]:
    """What the last (non-dry) merge run added: proposals and conflict links (None before any run)."""
    (run,) = audit.read(db, op="maintenance_run", target="merge", limit=1) or [None]
    summary = (run or {}).get("details", {}).get("summary") or {}
    return {"proposed": summary.get("proposed"), "conflicts": summary.get("conflicts")}


def backlog_warnings(f: dict[str, Any], added: dict[str, int | None], hc: HealthConfig) -> list[str]:
    """A warning for the pending merge proposals and for the open conflicts when either has grown past
    its share of the live memories (and past the minimum count)."""
    out = []
    for count, share, what, hint, new in (
            (f["merge_pending"], hc.pending_merges_warn_share, "pending merge proposals",
             "review them: graphcons merge list", added["proposed"]),
            (f["open_conflicts"], hc.open_conflicts_warn_share, "open conflicts (CONFLICTS_WITH)",
             "settle them: graphcons conflicts list", added["conflicts"])):
        limit = share * f["live"]
        if count >= max(hc.warn_min_count, 1) and count > limit:
            since = f"; the last merge run added {new}" if new else ""
            out.append(f"{count} {what} for {f['live']} live memories ({count / max(f['live'], 1):.1%}, warn above "
                       f"{share:.1%}){since}; {hint}")
    return out


def job_runs(db: Database, cfg: Config, now: datetime) -> tuple[dict[str, Any], list[str]]:
    """Each scheduled job's last run (any status) and last ok run; a warning for every enabled job
    whose last ok run is older than twice its period, and for every job whose last run failed."""
    runs = jobruns.last(db)
    out, warnings = {}, []
    for name in JOBS:
        jc = getattr(cfg.jobs, name, None)
        if not isinstance(jc, JobConfig):
            continue
        r = runs.get(name, {})
        ok = (r.get("ok") or {}).get("now")
        period = schedule.period(jc.schedule, now)
        overdue = bool(jc.enabled and ok is not None and now - ok > 2 * period)
        out[name] = {"schedule": jc.schedule, "enabled": jc.enabled, "last_run": r.get("last"),
                     "last_ok": r.get("ok"), "overdue": overdue}
        if overdue:
            warnings.append(f"job {name} is overdue: last ok run {ok.isoformat()}, more than twice its period "
                            f"({period}) ago; is a worker running? (graphcons worker)")
        last = r.get("last") or {}
        if last.get("status") == "failed":
            warnings.append(f"job {name}: last run {last.get('run_id')} failed: {last.get('error')}")
    return out, warnings
