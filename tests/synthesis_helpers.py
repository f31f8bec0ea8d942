"""Shared helpers of the synthesis / proposal / provenance tests (issue 4)."""

from __future__ import annotations

from datetime import datetime, timezone

from graphcons.consolidation.cluster import Cluster

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)

INCIDENTS = [
    ("inc-1", "Checkout returned 503 after deploy 4.1; rolled back after 12 minutes.", "pagerduty", "2026-11-02"),
    ("inc-2", "503s on checkout right after deploy 4.2, cache was cold.", "oncall-ana", "2026-11-09"),
    ("inc-3", "Deploy 4.3 went out and checkout served 503 after deploy for 8 minutes.", "oncall-bo", "2026-11-16"),
    ("inc-4", "Again 503 after deploy 4.4 on checkout; we should warm the cache before switching traffic.",
     "pagerduty", "2026-11-23"),
]


def add_incidents(g, rows=INCIDENTS, subject="checkout", namespace="default", kind="incident"):
    for mid, text, source, day in rows:
        g.add({"id": mid, "content": text, "source": source, "subject": subject, "namespace": namespace,
               "kind": kind, "created_at": f"{day}T10:00:00+00:00"})
    return Cluster(member_ids=tuple(r[0] for r in rows), namespace=namespace, subject=subject,
                   figures={"size": len(rows), "cohesion": 0.9})


def count(g, cypher, **params):
    return g.db.run_text(cypher, **params)[0]["n"]


def insights(g):
    return count(g, "MATCH (m:Memory {kind: 'insight'}) RETURN count(m) AS n")


def proposals_count(g):
    return count(g, "MATCH (p:Proposal) RETURN count(p) AS n")
