"""Dirty marks: the event triggers' cheap half (seed 003). Admission adds one to its
(namespace, subject) mark inside its own transaction; each job that reads the marks keeps
its own cursor (`DirtyCursor.seen`), so a hundred admissions make one run, and a run
clears only what it saw at its start."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graphcons.core.db import Database


def mark(tx: Any, namespace: str, subject: str, now: datetime) -> None:
    """One write in the caller's (admission's) transaction."""
    tx.run("jobs/mark_dirty", namespace=namespace, subject=subject, now=now)


def pending(db: Database, job: str, threshold: int = 1, limit: int = 1000) -> list[dict[str, Any]]:
    """Subjects with >= threshold admissions since `job` last cleared them, most first."""
    return db.run("jobs/dirty", job=job, threshold=threshold, limit=limit)


def clear(db: Database, job: str, marks: list[dict[str, Any]], now: datetime, run_id: str) -> int:
    if not marks:
        return 0
    rows = [{"key": m["key"], "count": m["count"]} for m in marks]
    return db.run("jobs/clear_dirty", job=job, marks=rows, now=now, run_id=run_id)[0]["cleared"]
