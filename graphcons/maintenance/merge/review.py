"""The `merge` proposal kind: apply a reviewed merge, or revert one.

Applying: `(winner)-[:SUPERSEDES {proposal}]->(loser)`; the loser becomes deprecated, still
addressable; distinct sources and access statistics add up on the winner; retrieval
follows SUPERSEDES to the winner. Reverting keeps the edge, marked `reverted: true`, and
gives the loser its status back. The review queue (graphcons.review.queue) calls these;
the merge job calls `apply` directly when `[merge] auto_apply = true`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

from graphcons.core import audit
from graphcons.core.db import Database, Tx
from graphcons.core.errors import Conflict
from graphcons.core.memory import LIVE_STATUSES
from graphcons.store import justification, proposals
from graphcons.store.proposals import Decision

KIND = "merge"


def apply(tx: Any, p: dict[str, Any], *, now: datetime, run_id: str, by: str) -> Decision:
    """Apply one pending merge proposal inside the caller's transaction."""
    pid, payload = p["id"], p["payload"]
    out = tx.run("merge/apply", winner=payload["winner"], loser=payload["loser"], proposal_id=pid, now=now,
                 run_id=run_id, score=payload["score"], live=LIVE_STATUSES)
    if not out:
        raise Conflict(f"merge proposal {pid!r} is stale: {payload['winner']} or {payload['loser']} is no "
                       "longer live (or they no longer share subject and namespace); reject it")
    proposals.transition(tx, pid, "pending", "applied", now=now, by=by, run_id=run_id)
    audit.record(tx, "merge", [payload["winner"], payload["loser"]], run_id=run_id, at=now, proposal=pid, by=by,
                 rule=payload.get("rule_text"), winner=payload["winner"], loser=payload["loser"],
                 before={"winner": out[0]["before"], "loser_status": out[0]["loser_status"]},
                 after={"winner": out[0]["after"], "loser_status": "deprecated"})
    justification.premises_changed(tx, [payload["loser"]], op="merge", now=now, run_id=run_id,
                                   cause=f"{payload['loser']} merged into {payload['winner']} (proposal {pid})")
    return Decision(proposal_id=pid, kind=KIND, status="applied", changed=True, winner=payload["winner"],
                    loser=payload["loser"])


def approve(db: Database, p: dict[str, Any], *, by: str, now: datetime,
            checkpoint: Callable[[str], None] | None = None) -> Decision:
    """Apply a pending merge in one transaction; approving an applied one changes nothing."""
    return proposals.approve_once(db, p["id"], KIND, lambda tx, locked: apply(
        tx, locked, now=now, run_id=audit.new_run_id("merge-approve"), by=by), keep=("winner", "loser"), checkpoint=checkpoint)


def revert(db: Database, p: dict[str, Any], reason: str, *, by: str, now: datetime) -> Decision:
    """Undo an applied merge; the SUPERSEDES edge stays, marked reverted."""
    pid = p["id"]
    run_id = audit.new_run_id("merge-revert")
    def work(tx: Tx) -> dict[str, Any]:
        proposals.transition(tx, pid, "applied", "reverted", now=now, by=by, reason=reason, run_id=run_id)
        out = tx.run("merge/revert", proposal_id=pid, now=now, run_id=run_id)
        row = out[0] if out else {}
        audit.record(tx, "merge_reverted", p.get("memory_ids") or [], run_id=run_id, at=now, proposal=pid, by=by,
                     rule="revert merge", reason=reason,
                     before={"winner": row.get("before"), "loser_status": row.get("loser_was")},
                     after={"winner": row.get("after"), "loser_status": row.get("loser_now")})
        if row.get("loser"):
            justification.premises_restored(tx, [row["loser"]], now=now, run_id=run_id,
                                            cause=f"merge {pid} reverted: {reason}")
        return row

    row = db.write(work)
    return Decision(proposal_id=pid, kind=KIND, status="reverted", changed=True, winner=row.get("winner"),
                    loser=row.get("loser"), reason=reason)
