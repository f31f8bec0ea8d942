"""The `update` proposal kind (issue 51): apply a reviewed update, or revert one.

Applying writes `(newer)-[:SUPERSEDES {reason: 'update', attribute, since, at, by, run_id, proposal_id,
reverted: false}]->(older)`; both memories keep their status (the older value is history, answerable
"as of" an earlier date; retrieval reads the edge). Reverting keeps the edge, marked `reverted: true`.
An open `CONFLICTS_WITH` between the two (the merge pass kept them apart for their different values) is
settled by applying (resolved, the newer holding since `since`, audited) and reopened by reverting (issue 62).
The review queue (graphcons.review.queue) calls these; the update pass calls `apply` directly when
`[updates] auto_apply = true`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graphcons.core import audit
from graphcons.core.db import Tx
from graphcons.core.errors import Conflict
from graphcons.core.memory import LIVE_STATUSES
from graphcons.maintenance.updates.detect import KIND
from graphcons.store import proposals
from graphcons.store.justification import premises_changed, premises_restored
from graphcons.store.proposals import Decision, Payload, Proposal, Review, Status, UpdateEffect


@dataclass(frozen=True, kw_only=True)
class UpdatePayload(Payload):
    """One detected `Update` (detect.py) as stored: the two memories, the attribute, both values,
    both sentences and dates (the rest, e.g. the confidence, is shown as it is)."""

    newer: str
    older: str
    attribute: str
    old_value: str
    new_value: str
    newer_since: str
    older_since: str | None = None
    newer_sentence: str | None = None
    older_sentence: str | None = None


PAYLOAD = UpdatePayload


def apply(tx: Any, p: Proposal[UpdatePayload], *, now: datetime, run_id: str, by: str) -> Decision:
    """Apply one pending update proposal inside the caller's transaction."""
    pid, u = p.id, p.payload
    out = tx.run("updates/apply", newer=u.newer, older=u.older, proposal_id=pid, attribute=u.attribute,
                 since=u.newer_since, at=now.isoformat(), by=by, run_id=run_id, live=LIVE_STATUSES)
    if not out:
        raise Conflict(f"update proposal {pid!r} is stale: {u.newer} or {u.older} is no longer live (or they "
                       "no longer share subject and namespace); reject it")
    proposals.transition(tx, pid, "pending", "applied", now=now, by=by, run_id=run_id)
    audit.record(tx, "update_applied", [u.newer, u.older], run_id=run_id, at=now, proposal=pid, by=by,
                 attribute=u.attribute, since=u.newer_since, old_value=u.old_value, new_value=u.new_value,
                 rule="a newer memory states a new value: (newer)-[:SUPERSEDES {reason: 'update'}]->(older); "
                      "both stay active")
    settled = tx.run("updates/settle_conflicts", newer=u.newer, older=u.older, proposal_id=pid,
                     attribute=u.attribute, since=u.newer_since, by=by, now=now)
    if settled:  # the merge pass kept them apart for their different values: the update says which holds
        audit.record(tx, "conflict_settled", [u.newer, u.older], run_id=run_id, at=now, proposal=pid, by=by,
                     holds=u.newer, since=u.newer_since,
                     rule="an applied update settles the open CONFLICTS_WITH between its two memories; link kept")
        premises_restored(tx, [u.newer, u.older], cause=f"conflict settled by update {pid}", now=now,
                          run_id=run_id)
    return Decision.of(pid, KIND, Status.APPLIED, effect=UpdateEffect(u.newer, u.older))


def approve(p: Proposal[UpdatePayload], review: Review) -> Decision:
    """Apply a pending update in one transaction; approving an applied one changes nothing."""
    return proposals.approve_once(
        review, p.id, KIND, UpdatePayload,
        lambda tx, locked: apply(tx, locked, now=review.now, run_id=audit.new_run_id("update-approve"), by=review.by),
        unchanged=lambda locked: UpdateEffect(locked.payload.newer, locked.payload.older))


def reject(tx: Tx, p: Proposal[UpdatePayload], review: Review) -> None:
    """Nothing of the two memories changes; the update pass reads the rejection off the proposal."""


def revert(p: Proposal[UpdatePayload], review: Review) -> Decision:
    """Undo an applied update: its SUPERSEDES edge stays, marked reverted; nothing else changes."""
    pid, u, now, by, reason = p.id, p.payload, review.now, review.by, review.reason
    run_id = audit.new_run_id("update-revert")

    def work(tx: Tx) -> None:
        proposals.transition(tx, pid, "applied", "reverted", now=now, by=by, reason=reason, run_id=run_id)
        out = tx.run("updates/revert", proposal_id=pid, at=now.isoformat(), by=by, run_id=run_id)
        audit.record(tx, "update_reverted", [u.newer, u.older], run_id=run_id, at=now, proposal=pid, by=by,
                     reason=reason, edges=len(out), rule="revert update: the SUPERSEDES edge is kept, marked reverted")
        if tx.run("updates/reopen_conflicts", newer=u.newer, older=u.older, proposal_id=pid, by=by, now=now):
            audit.record(tx, "conflict_reopened", [u.newer, u.older], run_id=run_id, at=now, proposal=pid,
                         by=by, rule="revert update: the conflict its apply settled is open again")
            # an open conflict is one a premise may not rest on (seed 002), as when the merge pass opened it
            premises_changed(tx, [u.newer, u.older], op="conflict", cause=f"update {pid} reverted", now=now,
                             run_id=run_id)

    review.db.write(work)
    return Decision.of(pid, KIND, Status.REVERTED, reason=reason, effect=UpdateEffect(u.newer, u.older))
