"""When a job is due: its cron schedule, or earlier by an event trigger (seed 003).

Schedule: a job that never ran is due at once; otherwise at the first fire time of its cron
expression after its last settled (ok or failed) run, so a failed run waits for its next
time and a killed or interrupted one is resumed at once.
Triggers (each at most once per `[jobs] trigger_min_gap_s` after the job's last run):
- merge, promote, updates: a subject with `trigger_insertions` (10) new memories since the job last ran;
- consolidate (with `[consolidation] auto_trigger` and `enabled`): a subject with
  `trigger_cluster_size` (5) new memories, or a cluster scan since the last run that
  reported consolidation_due > 0;
- deprecate: a weights / decay run since the last deprecate left a live memory below
  `trigger_weight` (0.15).
A quiet subject is still covered: a triggered run touches only the dirty scopes (`[jobs]
incremental`, graphcons.jobs.table), and the schedule's full pass always fires.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from graphcons.core import schedule
from graphcons.core.config import Config
from graphcons.core.db import Database
from graphcons.core.memory import LIVE_STATUSES
from graphcons.jobs.table import JOBS, settings
from graphcons.store import dirty, jobruns


@dataclass
class Due:
    job: str
    due: bool
    reason: str
    next_due: datetime | None = None  # None: now (never ran)
    subjects: list[dict[str, Any]] = field(default_factory=list)  # the dirty subjects that triggered it


def check(db: Database, cfg: Config, name: str, now: datetime,
          last: dict[str, dict[str, Any]] | None = None) -> Due:
    job, jc = JOBS[name], settings(cfg, name)
    if job.run is None:
        return Due(name, False, "not implemented yet (a later issue adds it)")
    if not jc.enabled:
        return Due(name, False, f"disabled ([jobs.{name}] enabled = false)")
    runs = (jobruns.last(db) if last is None else last).get(name, {})
    settled = runs.get("settled")
    if settled is None:
        return Due(name, True, "never ran")
    nxt = schedule.next_after(jc.schedule, settled["now"])
    if now >= nxt:
        return Due(name, True, f"scheduled ({jc.schedule}, due since {nxt.isoformat()})", nxt)
    if settled.get("status") == "failed":  # no trigger retries a failure: it waits for its next time
        return Due(name, False, f"last run failed; next at {nxt.isoformat()}", nxt)
    if now - settled["now"] < timedelta(seconds=cfg.jobs.trigger_min_gap_s):
        return Due(name, False, "ran recently", nxt)
    reason, subjects = _trigger(db, cfg, name, settled["now"])
    return Due(name, bool(reason), reason or "not due", nxt, subjects)


def _trigger(db: Database, cfg: Config, name: str, since: datetime) -> tuple[str, list[dict[str, Any]]]:
    jobs = cfg.jobs
    if name in ("merge", "promote", "updates"):
        subjects = dirty.pending(db, name, jobs.trigger_insertions, limit=20)
        if subjects:
            return (f"trigger: {len(subjects)} subject(s) with >= {jobs.trigger_insertions} new memories "
                    f"({', '.join(s['key'] for s in subjects[:3])})"), subjects
    if name == "consolidate" and cfg.consolidation.auto_trigger and cfg.consolidation.enabled:
        subjects = dirty.pending(db, name, jobs.trigger_cluster_size, limit=20)
        if subjects:
            return (f"trigger: {len(subjects)} subject(s) with >= {jobs.trigger_cluster_size} new memories "
                    f"({', '.join(s['key'] for s in subjects[:3])})"), subjects
        if db.run("jobs/scan_due", since=since)[0]["due"] > 0:
            return "trigger: a cluster scan reported consolidation_due > 0", []
    if name == "deprecate":
        return _deprecate_trigger(db, cfg, since), []
    return "", []


def _deprecate_trigger(db: Database, cfg: Config, since: datetime) -> str:
    last = jobruns.last(db)
    recent = [j for j in ("weights", "decay") if (last.get(j, {}).get("ok") or {}).get("now") and
              last[j]["ok"]["now"] > since]
    if not recent:
        return ""
    n = db.run("jobs/below_weight", live=LIVE_STATUSES, weight=cfg.jobs.trigger_weight)[0]["n"]
    return f"trigger: {n} live memor{'y' if n == 1 else 'ies'} below weight {cfg.jobs.trigger_weight:g}" if n else ""


def due_jobs(db: Database, cfg: Config, now: datetime) -> list[Due]:
    last = jobruns.last(db)
    return [d for d in (check(db, cfg, name, now, last) for name in JOBS) if d.due]
