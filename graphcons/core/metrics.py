"""Prometheus metrics (issue 42): the families `graphcons serve` and the worker expose on /metrics.

Counters and histograms live in prometheus-client's default registry, so every part of one process
adds to the same families; gauges that are read from Neo4j (proposals pending, memories) are computed
at scrape time by `StoreCollector`, from a callable the caller gives (no store import down here).
Labels are bounded: route templates (never raw paths), job names, outcomes, kinds, statuses, and at
most MAX_NAMESPACES namespaces (the rest summed under "_other"); no ids, no free text.
prometheus-client is a base dependency: pure Python, no dependencies of its own.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

MAX_NAMESPACES = 50
OTHER = "_other"

HTTP_REQUESTS = Counter("graphcons_http_requests", "HTTP requests by route template, method and status",
                        ["route", "method", "status"])
HTTP_LATENCY = Histogram("graphcons_http_request_duration_seconds", "HTTP request latency by route template",
                         ["route", "method"])
NEO4J_UNAVAILABLE = Counter("graphcons_neo4j_unavailable", "Calls that failed because Neo4j was unreachable")
NEO4J_RETRIES = Counter("graphcons_neo4j_retries", "Transactions retried, by cause", ["cause"])
JOB_RUNS = Counter("graphcons_job_runs", "Job runs by job and outcome", ["job", "outcome"])
JOB_DURATION = Histogram("graphcons_job_duration_seconds", "Job run durations by job and outcome",
                         ["job", "outcome"], buckets=(0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600))


def retried(cause: str) -> None:
    NEO4J_RETRIES.labels(cause).inc()


def job_ran(job: str, outcome: str, seconds: float) -> None:
    JOB_RUNS.labels(job, outcome).inc()
    JOB_DURATION.labels(job, outcome).observe(seconds)


class StoreCollector(Collector):
    """Gauges read from the store at scrape time: `counts()` returns {"proposals": [{kind, n}],
    "memories": [{namespace, status, n}]}. A failing read (Neo4j down) leaves them out of the scrape."""

    def __init__(self, counts: Callable[[], dict[str, list[dict[str, Any]]]]):
        self.counts = counts

    def collect(self) -> Iterable[GaugeMetricFamily]:
        try:
            counts = self.counts()
        except Exception:  # the scrape still shows the process' counters (unavailability among them)
            return
        pending = GaugeMetricFamily("graphcons_proposals_pending", "Pending proposals by kind", labels=["kind"])
        for row in counts["proposals"]:
            pending.add_metric([row["kind"]], row["n"])
        yield pending
        memories = GaugeMetricFamily("graphcons_memories", "Memories by namespace and status",
                                     labels=["namespace", "status"])
        for (namespace, status), n in sorted(bounded(counts["memories"]).items()):
            memories.add_metric([namespace, status], n)
        yield memories


def bounded(rows: list[dict[str, Any]]) -> dict[tuple[str, str], int]:
    """The largest MAX_NAMESPACES namespaces by name, the rest summed as "_other"."""
    totals: dict[str, int] = {}
    for r in rows:
        totals[r["namespace"]] = totals.get(r["namespace"], 0) + r["n"]
    kept = set(sorted(totals, key=lambda ns: (-totals[ns], ns))[:MAX_NAMESPACES])
    out: dict[tuple[str, str], int] = {}
    for r in rows:
        key = (r["namespace"] if r["namespace"] in kept else OTHER, r["status"])
        out[key] = out.get(key, 0) + r["n"]
    return out


def exposition(store: CollectorRegistry | None = None) -> tuple[bytes, str]:
    """The text format of the process' families plus a store collector's registry, and its content type."""
    body = generate_latest(REGISTRY) + (generate_latest(store) if store is not None else b"")
    return body, CONTENT_TYPE_LATEST


def store_registry(counts: Callable[[], dict[str, list[dict[str, Any]]]]) -> CollectorRegistry:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(StoreCollector(counts))
    return registry
