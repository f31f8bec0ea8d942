"""The `update` proposal kind (issue 51): apply a reviewed update, or revert one.

Applying writes `(newer)-[:SUPERSEDES {reason: 'update', attribute, since, at, by, run_id, proposal_id,
reverted: false}]->(older)`; both memories keep their status (the older value is history, answerable
"as of" an earlier date; retrieval reads the edge). Reverting keeps the edge, marked `reverted: true`.
The review queue (graphcons.review.queue) calls these; the update pass calls `apply` directly when
`[updates] auto_apply = true`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

from graphcons.core import audit
from graphcons.core.db import Database, Tx
from graphcons.core.errors import Conflict
from graphcons.core.memory import LIVE_STATUSES
from graphcons.maintenance.updates.detect import KIND
from graphcons.store import proposals
from graphcons.store.proposals import Decision


def apply(tx: Any, p: dict[str, Any], *, now: datetime, run_id: str, by: str) -> Decision:
    """Apply one pending update proposal inside the caller's transaction."""
    pid, u = p["id"], p["payload"]
    out = tx.run("updates/apply", newer=u["newer"], older=u["older"], proposal_id=pid, attribute=u["attribute"],
                 since=u["newer_since"], at=now.isoformat(), by=by, run_id=run_id, live=LIVE_STATUSES)
    if not out:
        raise Conflict(f"update proposal {pid!r} is stale: {u['newer']} or {u['older']} is no longer live (or they "
                       "no longer share subject and namespace); reject it")
    proposals.transition(tx, pid, "pending", "applied", now=now, by=by, run_id=run_id)
    audit.record(tx, "update_applied", [u["newer"], u["older"]], run_id=run_id, at=now, proposal=pid, by=by,
                 attribute=u["attribute"], since=u["newer_since"], old_value=u["old_value"], new_value=u["new_value"],
                 rule="a newer memory states a new value: (newer)-[:SUPERSEDES {reason: 'update'}]->(older); "
                      "both stay active")
    return Decision(proposal_id=pid, kind=KIND, status="applied", changed=True, newer=u["newer"], older=u["older"])


def approve(db: Database, p: dict[str, Any], *, by: str, now: datetime,
            checkpoint: Callable[[str], None] | None = None) -> Decision:
    """Apply a pending update in one transaction; approving an applied one changes nothing."""
    return proposals.approve_once(db, p["id"], KIND, lambda tx, locked: apply(
        tx, locked, now=now, run_id=audit.new_run_id("update-approve"), by=by), keep=("newer", "older"), checkpoint=checkpoint)


def revert(db: Database, p: dict[str, Any], reason: str, *, by: str, now: datetime) -> Decision:
    """Undo an applied update: its SUPERSEDES edge stays, marked reverted; nothing else changes."""
    pid, u = p["id"], p["payload"]
    run_id = audit.new_run_id("update-revert")

    def work(tx: Tx) -> None:
        proposals.transition(tx, pid, "applied", "reverted", now=now, by=by, reason=reason, run_id=run_id)
        out = tx.run("updates/revert", proposal_id=pid, at=now.isoformat(), by=by, run_id=run_id)
        audit.record(tx, "update_reverted", [u["newer"], u["older"]], run_id=run_id, at=now, proposal=pid, by=by,
                     reason=reason, edges=len(out), rule="revert update: the SUPERSEDES edge is kept, marked reverted")

    db.write(work)
    return Decision(proposal_id=pid, kind=KIND, status="reverted", changed=True, newer=u["newer"], older=u["older"],
                    reason=reason)
