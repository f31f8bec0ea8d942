"""Scheduled jobs (issue 10): `graphcons worker [--once]`, `graphcons jobs list`, `graphcons jobs run NAME`."""

from __future__ import annotations

import signal
import sys
import threading
from typing import Optional

import typer
from rich.table import Table

from graphcons.cli.app import JsonOpt, answer, app, console, emit_json, errors_to_exit, load_cfg, open_store, parse_now
from graphcons.core.text import printable
from graphcons.core.time import utcnow
from graphcons.jobs.worker import MANUAL_AT

jobs_app = typer.Typer(help="Scheduled jobs: list them, run one now (under its lease).", no_args_is_help=True)
app.add_typer(jobs_app, name="jobs")


@app.command()
def worker(once: bool = typer.Option(False, "--once", help="Run what is due now and exit (cron, systemd timer, "
                                     "Kubernetes CronJob)."),
           now: Optional[str] = typer.Option(None, "--now", help="Decision time, ISO-8601 with timezone "
                                             "(with --once; default: the clock)."),
           metrics_port: Optional[int] = typer.Option(None, "--metrics-port", help="Serve Prometheus metrics on "
                                                      "this port (no token: firewall it)."),
           metrics_host: str = typer.Option("127.0.0.1", "--metrics-host", help="Interface of --metrics-port.")) -> None:
    """Run due jobs, each under its Neo4j lease, until SIGTERM; one log line per run."""
    from graphcons.api import Graphcons
    from graphcons.core import tracing
    from graphcons.jobs.worker import loop, worker_id

    def connect():
        g = Graphcons(cfg)
        g.init()  # idempotent: a store from before issue 10 gets the lease / job-run constraints
        return g.db

    cfg = load_cfg()
    at = parse_now(now)
    stop = threading.Event()

    def _stop(signum: int, _frame: object) -> None:
        log(f"signal {signal.Signals(signum).name}: stopping after the current transaction")
        stop.set()

    def log(line: str) -> None:
        sys.stdout.write(f"{utcnow().isoformat(timespec='seconds')} {worker_id()} {printable(line)}\n")
        sys.stdout.flush()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    tracing.configure(cfg.otel)
    if metrics_port is not None:
        _serve_metrics(cfg, metrics_host, metrics_port)
        log(f"metrics on http://{metrics_host}:{metrics_port}/metrics")
    log(f"worker started ({'once' if once else f'polling every {cfg.jobs.poll_s:g} s'})")
    with errors_to_exit():
        results = loop(connect, cfg, stop=stop, log=log, once=once, now=at)
    if any(r.status == "failed" for r in results) and once:
        raise typer.Exit(1)


def _serve_metrics(cfg, host: str, port: int) -> None:
    """prometheus-client's own HTTP server thread, with the store gauges read at scrape time
    through a connection of their own (opened on the first scrape)."""
    import prometheus_client

    from graphcons.api import Graphcons
    from graphcons.core.metrics import StoreCollector

    held: list[Graphcons] = []

    def counts():
        if not held:
            held.append(Graphcons(cfg))
        return held[0].census()

    prometheus_client.REGISTRY.register(StoreCollector(counts))
    prometheus_client.start_http_server(port, addr=host)


@jobs_app.command("list")
def jobs_list(now: Optional[str] = typer.Option(None, "--now", help="Decision time, ISO-8601 with timezone."),
              json_out: bool = JsonOpt) -> None:
    """Each job: schedule, enabled, next due, last run and its status, lease holder."""
    rows = answer(json_out, lambda g: g.jobs(now=parse_now(now)))
    if rows is None:
        return
    table = Table("job", "schedule", "enabled", "next due", "last run", "status", "lease holder")
    for r in rows:
        last = r["last_run"] or {}
        nxt = "now" if r["due"] else (str(r["next_due"]) if r["next_due"] else "-")
        table.add_row(r["job"], r["schedule"], "yes" if r["enabled"] else "no",
                      nxt if r["implemented"] else "not implemented", str(last.get("now") or "never"),
                      last.get("status", "-") + (" (manual --now: not counted by the schedule)"
                                                 if last.get("trigger") == MANUAL_AT else ""),
                      r["lease"]["owner"] or "-")
    console.print(table)


@jobs_app.command("run")
def jobs_run(name: str, now: Optional[str] = typer.Option(None, "--now", help="Decision time, ISO-8601 with timezone."),
             json_out: bool = JsonOpt) -> None:
    """Run one job now, due or not, taking its lease like a worker does (exit 8 when another holds it)."""
    from graphcons.core.errors import Conflict

    with open_store() as g:
        result = g.run_job(name, now=parse_now(now))
        if json_out:
            emit_json(result.__dict__)
        else:
            console.print(result.line(), highlight=False)
        if result.status == "skipped" and "lease" in result.reason:
            raise Conflict(f"job {name}: {result.reason}; try again when its run ends")
    if result.status == "failed":
        raise typer.Exit(1)
