"""The worker: runs due jobs, each under its Neo4j lease, and records every run.

`run_job` claims the job's lease (one atomic write), re-checks that the job is still due
(another worker may just have run it), records a (:JobRun), renews the lease from a thread
while the job runs, settles the run (ok / failed / interrupted) with an audit record, and
releases the lease. A claim that takes over an expired lease marks the dead worker's run
`abandoned`. `run_due` runs every due job once; `loop` does it every `[jobs] poll_s`,
stops on a stop event (SIGTERM) between two transactions, and backs off while Neo4j is
unreachable, never running a job without its lease. Any number of workers, on any number
of machines, may run against one Neo4j: each due job runs once.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable

from neo4j.exceptions import DriverError, ServiceUnavailable, SessionExpired, TransientError

from graphcons.core import audit, metrics, tracing
from graphcons.core.config import Config
from graphcons.core.db import Database
from graphcons.core.errors import Busy, NotFound, ServerUnavailable
from graphcons.core.time import require_aware, utcnow
from graphcons.jobs import due as dues
from graphcons.jobs.table import JOBS, Context
from graphcons.store import dirty, jobruns, leases
from graphcons.store.linker import link_pending

#: Neo4j being unreachable is not a job failure: the worker backs off and retries.
LOST_NEO4J = (ServiceUnavailable, SessionExpired, ServerUnavailable, DriverError, OSError)


class Stopped(Exception):
    """The worker must stop between two transactions (SIGTERM, or its lease was lost)."""


def worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


@dataclass
class RunResult:
    job: str
    status: str  # ok | failed | interrupted | skipped
    run_id: str | None = None
    reason: str = ""
    counts: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    took_over: str | None = None  # the worker whose expired lease this run took over
    notes: list[str] = field(default_factory=list)

    def line(self) -> str:
        """The one log line of a run."""
        parts = [f"job={self.job}", f"status={self.status}"]
        if self.run_id:
            parts.append(f"run={self.run_id}")
        if self.counts:
            parts.append(" ".join(f"{k}={v}" for k, v in self.counts.items()))
        if self.took_over:
            parts.append(f"took_over_from={self.took_over}")
        if self.reason:
            parts.append(f"reason={self.reason!r}")
        if self.error:
            parts.append(f"error={self.error!r}")
        parts.extend(self.notes)
        return " ".join(parts)


class _Renewer(threading.Thread):
    """Renews the lease every ttl/3 while the job runs; marks it lost when renewal fails."""

    def __init__(self, db: Database, lease: leases.Lease, ttl_s: float):
        super().__init__(daemon=True, name=f"lease-{lease.job}")
        self.db, self.lease, self.ttl_s = db, lease, ttl_s
        self.done, self.lost = threading.Event(), False

    def run(self) -> None:
        while not self.done.wait(self.ttl_s / 3):
            try:
                if not leases.renew(self.db, self.lease, self.ttl_s):
                    self.lost = True
                    return
            except LOST_NEO4J:
                continue  # retried at the next tick; the lease expires if Neo4j stays away


#: The trigger of a manual run at a decision time given by hand (`graphcons jobs run X --now T`): it runs
#: and is recorded, but never moves the job's schedule (cypher/jobs/last_runs.cypher leaves it out), so a
#: run at a future T does not push the next scheduled run past T.
MANUAL_AT = "manual --now"


def run_job(db: Database, cfg: Config, name: str, *, now: datetime, worker: str | None = None,
            stop: threading.Event | None = None, force: bool = False, trigger: str = "") -> RunResult:
    """Run one job under its lease (force: even when not due, as `graphcons jobs run` does)."""
    require_aware(now)
    if name not in JOBS:
        raise NotFound(f"no job named {name!r}; jobs: {', '.join(JOBS)}")
    job = JOBS[name]
    if job.run is None:
        return RunResult(name, "skipped", reason="not implemented yet (a later issue adds it)")
    worker = worker or worker_id()
    stop = stop or threading.Event()
    run_id = audit.new_run_id(name)
    ttl = cfg.jobs.lease_ttl_s
    lease = leases.claim(db, name, worker, run_id, ttl)
    if lease is None:
        return RunResult(name, "skipped", reason="lease held by another worker")
    try:
        # Holding the lease, no other run of this job can be alive: a run still 'running' lost its
        # worker (kill -9, or Neo4j lost mid-run) and is abandoned here; the job resumes below.
        dead = jobruns.abandon_running(db, name, f"its worker lost the lease; taken over by {worker} ({run_id})")
        if lease.taken_from or dead:
            audit.record(db, "lease_takeover", [name, *dead], run_id=run_id, at=now,
                         job=name, taken_from=lease.taken_from, worker=worker, abandoned=dead)
        d = dues.check(db, cfg, name, now)
        if not force and not d.due:
            return RunResult(name, "skipped", reason=d.reason, took_over=lease.taken_from)
        # A run that dirty subjects triggered (not the schedule, not by hand) may touch only the dirty scopes;
        # the schedule's full pass stays the safety net for anything a scoped pass cannot see.
        incremental = bool(d.due and d.subjects and not force and cfg.jobs.incremental)
        return _observed(db, cfg, lease, now, stop, trigger or ("manual" if force else d.reason), incremental)
    finally:
        try:
            leases.release(db, lease)
        except LOST_NEO4J:
            pass  # it expires by itself


def _observed(db: Database, cfg: Config, lease: leases.Lease, now: datetime, stop: threading.Event,
              trigger: str, incremental: bool) -> RunResult:
    """One run in a span, counted by job and outcome with its duration (issue 42); a run whose worker
    lost Neo4j counts as `lost` (it stays 'running' until the next claim abandons it)."""
    start, outcome = time.monotonic(), "lost"
    with tracing.span(f"job {lease.job}", job=lease.job, run_id=lease.run_id, trigger=trigger):
        try:
            result = _run_leased(db, cfg, lease, now, stop, trigger, incremental)
            outcome = result.status
            return result
        finally:
            metrics.job_ran(lease.job, outcome, time.monotonic() - start)


def _run_leased(db: Database, cfg: Config, lease: leases.Lease, now: datetime, stop: threading.Event,
                trigger: str, incremental: bool = False) -> RunResult:
    name, run_id = lease.job, lease.run_id
    job = JOBS[name]
    marks = dirty.pending(db, name, 1, limit=100_000) if job.dirty else []
    jobruns.start(db, name, run_id, lease.owner, now, trigger)
    renewer = _Renewer(db, lease, cfg.jobs.lease_ttl_s)

    def checkpoint() -> None:
        if stop.is_set():
            raise Stopped("stop requested (SIGTERM)")
        if renewer.lost:
            raise Stopped("lease lost (expired and taken by another worker)")

    scopes = [{"namespace": m["namespace"], "subject": m["subject"]} for m in marks] if incremental else None
    ctx = Context(run_id=run_id, checkpoint=checkpoint, scopes=scopes)
    renewer.start()
    result = RunResult(name, "ok", run_id, reason=trigger, took_over=lease.taken_from)
    try:
        result.counts = job.run(db, cfg, now, ctx)
        result.notes = ctx.notes
        if marks:
            dirty.clear(db, name, marks, now, run_id)
    except Stopped as exc:
        result.status, result.error = "interrupted", str(exc)
    except TransientError as exc:  # e.g. a deadlock with admission: resumed at the next poll
        result.status, result.error = "interrupted", f"transient: {exc.code}"
    except Busy as exc:  # the same, once db.write's retries are spent (core/db.py)
        result.status, result.error = "interrupted", f"transient: {exc}"
    except LOST_NEO4J:
        raise  # the run stays 'running'; its lease expires and the next claim marks it abandoned
    except Exception as exc:  # a job that raises is recorded as failed and retried at its next due time
        result.status, result.error = "failed", f"{type(exc).__name__}: {exc}"
    finally:
        renewer.done.set()
    jobruns.finish(db, run_id, result.status, result.counts, result.error)
    audit.record(db, "job_run", [name], run_id=run_id, at=now, job=name, status=result.status, worker=lease.owner,
                 trigger=trigger, counts=result.counts, error=result.error, took_over=lease.taken_from)
    return result


def run_due(db: Database, cfg: Config, *, now: datetime, worker: str | None = None,
            stop: threading.Event | None = None) -> list[RunResult]:
    """Run every job due at `now` once (each under its lease); skipped ones are reported too."""
    out = []
    for d in dues.due_jobs(db, cfg, now):
        if stop is not None and stop.is_set():
            break
        out.append(run_job(db, cfg, d.job, now=now, worker=worker, stop=stop, trigger=d.reason))
    return out


def loop(connect: Callable[[], Database], cfg: Config, *, stop: threading.Event, log: Callable[[str], None],
         once: bool = False, now: datetime | None = None, max_backoff_s: float = 60.0) -> list[RunResult]:
    """Poll for due jobs until `stop` is set (or once); reconnect with backoff while Neo4j is away."""
    worker, backoff, db, results, failures = worker_id(), 1.0, None, [], 0
    while not stop.is_set():
        try:
            db = db or connect()
            for r in run_due(db, cfg, now=now or utcnow(), worker=worker, stop=stop):
                results.append(r)
                if r.status != "skipped" or once:
                    log(r.line())
            if linked := link_pending(db, cfg):  # SIMILAR edges a put deferred and its process did not write
                log(f"linked the SIMILAR neighbours of {linked} memories written by put")
            backoff, failures = 1.0, 0
            if once:
                break
            stop.wait(cfg.jobs.poll_s)
        except LOST_NEO4J as exc:
            failures += 1
            if once and failures >= 5:  # a one-shot run (cron) gives up; the next tick tries again
                raise ServerUnavailable(f"neo4j unavailable after {failures} attempts: {exc}") from exc
            log(f"neo4j unavailable ({type(exc).__name__}: {exc}); retrying in {backoff:.0f} s")
            if db is not None:
                db.close()
                db = None
            stop.wait(backoff)
            backoff = min(backoff * 2, max_backoff_s)
    if db is not None:
        db.close()
    return results
