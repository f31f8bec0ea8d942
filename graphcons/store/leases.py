"""Job leases in Neo4j, the only state workers share (issue 10).

A lease is a `(:Lease {job, owner, token, run_id, expires_at})` node. `claim` takes it in one
conditional write when it is free or expired (cypher/jobs/lease_claim.cypher), `renew`
extends it and `release` frees it, both only with the holder's token. A worker killed with
`kill -9` leaves a lease that expires after its TTL; the next claim takes it over and says
whose run it replaced. Expiry is measured on the server's clock, so workers on several
machines need no synchronised clocks and nothing besides Neo4j.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from graphcons.core.db import Database


@dataclass
class Lease:
    job: str
    owner: str
    token: str
    run_id: str
    taken_from: str | None = None  # the owner of the expired lease this claim took over
    previous_run: str | None = None


def claim(db: Database, job: str, owner: str, run_id: str, ttl_s: float) -> Lease | None:
    """The lease if it was free or expired (one atomic write), else None."""
    token = uuid.uuid4().hex
    rows = db.run("jobs/lease_claim", job=job, owner=owner, token=token, run_id=run_id, ttl_ms=int(ttl_s * 1000))
    if not rows:
        return None
    return Lease(job, owner, token, run_id, rows[0]["taken_from"], rows[0]["previous_run"])


def renew(db: Database, lease: Lease, ttl_s: float) -> bool:
    """False when the lease was lost (it expired and another worker took it)."""
    return bool(db.run("jobs/lease_renew", job=lease.job, token=lease.token, ttl_ms=int(ttl_s * 1000)))


def release(db: Database, lease: Lease) -> bool:
    return bool(db.run("jobs/lease_release", job=lease.job, token=lease.token, owner=lease.owner))


def holders(db: Database) -> dict[str, dict[str, Any]]:
    """Every lease by job: owner (None when free), run_id, expires_at, expired, takeovers."""
    return {r["job"]: r for r in db.run("jobs/leases")}
