"""`graphcons jobs list`: each job's schedule, enabled flag, next due time, last run and lease holder."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graphcons.core.config import Config
from graphcons.core.db import Database
from graphcons.jobs import due as dues
from graphcons.jobs.table import JOBS, settings
from graphcons.store import jobruns, leases


def jobs(db: Database, cfg: Config, now: datetime) -> list[dict[str, Any]]:
    last, held = jobruns.last(db), leases.holders(db)
    out = []
    for name, job in JOBS.items():
        jc = settings(cfg, name)
        d = dues.check(db, cfg, name, now, last)
        lease = held.get(name) or {}
        run = (last.get(name) or {}).get("last")
        out.append({
            "job": name, "schedule": jc.schedule, "enabled": jc.enabled, "implemented": job.run is not None,
            "due": d.due, "reason": d.reason,
            "next_due": now if d.due else d.next_due,
            "last_run": run,
            "lease": {"owner": lease.get("owner"), "run_id": lease.get("run_id"), "expires_at": lease.get("expires_at"),
                      "expired": lease.get("expired"), "takeovers": lease.get("takeovers", 0)},
        })
    return out
