"""(:JobRun) records: one per job run, written when the run starts under its lease and
settled when it ends (ok, failed with its error, interrupted by SIGTERM, or abandoned:
its worker died and another took the lease over). The schedule counts from the last
settled run, so an abandoned or interrupted run is resumed at once and a failed one waits
for its next due time (no tight loop)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from graphcons.core.db import Database

SETTLED = ("ok", "failed")


def start(db: Database, job: str, run_id: str, worker: str, now: datetime, trigger: str) -> None:
    db.run("jobs/run_start", job=job, run_id=run_id, worker=worker, now=now, trigger=trigger)


def finish(db: Database, run_id: str, status: str, counts: dict[str, Any] | None = None,
           error: str | None = None) -> bool:
    """Settle a running run; False when it was already settled (e.g. marked abandoned)."""
    return bool(db.run("jobs/run_finish", run_id=run_id, status=status,
                       counts=json.dumps(counts or {}, sort_keys=True, default=str), error=error))


def last(db: Database) -> dict[str, dict[str, Any]]:
    """By job: the newest run (`last`), the newest ok-or-failed one (`settled`) and the newest ok one."""
    out = {}
    for r in db.run("jobs/last_runs"):
        last_run = r["last"]
        if last_run and isinstance(last_run.get("counts"), str):
            last_run["counts"] = json.loads(last_run["counts"])
        out[r["job"]] = {"last": last_run, "settled": r["settled"], "ok": r["ok"]}
    return out


def runs(db: Database, job: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
    rows = [r["run"] for r in db.run("jobs/runs", job=job, limit=limit)]
    for r in rows:
        if isinstance(r.get("counts"), str):
            r["counts"] = json.loads(r["counts"])
    return rows


def abandon_running(db: Database, job: str, reason: str) -> list[str]:
    """Mark every run of `job` still 'running' abandoned (called by the lease holder only)."""
    return [r["run_id"] for r in db.run("jobs/run_abandon", job=job, error=reason)]
