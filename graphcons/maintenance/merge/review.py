"""The `merge` proposal kind: apply a reviewed merge, or revert one.

Applying: `(winner)-[:SUPERSEDES {proposal}]->(loser)`; the loser becomes deprecated, still
addressable; distinct sources and access statistics add up on the winner; retrieval
follows SUPERSEDES to the winner. Reverting keeps the edge, marked `reverted: true`, and
gives the loser its status back. The review queue (graphcons.review.queue) calls these;
the merge job calls `apply` directly when `[merge] auto_apply = true`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graphcons.core import audit
from graphcons.core.db import Tx
from graphcons.core.errors import Conflict
from graphcons.core.memory import LIVE_STATUSES
from graphcons.store import justification, proposals
from graphcons.store.proposals import Decision, MergeEffect, Payload, Proposal, Review, Status

KIND = "merge"


@dataclass(frozen=True, kw_only=True)
class MergePayload(Payload):
    """The pair and the figures that proposed it (`Pair.as_dict()` and the settings, the job's
    `_proposal_props`): what applying and the reviewer's view read; the verifier's and the guard's
    other stages stay in `rest`, shown as they are."""

    winner: str
    loser: str
    score: float
    rule_text: str | None = None  # the rule as the audit states it
    rule: str | None = None  # the pair's decision rule
    title_sim: float | None = None
    cosine: float | None = None
    title_weight: float | None = None
    content_weight: float | None = None
    threshold: float | None = None
    contradictions: list[str] | None = None


PAYLOAD = MergePayload


def apply(tx: Any, p: Proposal[MergePayload], *, now: Any, run_id: str, by: str) -> Decision:
    """Apply one pending merge proposal inside the caller's transaction."""
    pid, pair = p.id, p.payload
    out = tx.run("merge/apply", winner=pair.winner, loser=pair.loser, proposal_id=pid, now=now,
                 run_id=run_id, score=pair.score, live=LIVE_STATUSES)
    if not out:
        raise Conflict(f"merge proposal {pid!r} is stale: {pair.winner} or {pair.loser} is no "
                       "longer live (or they no longer share subject and namespace); reject it")
    proposals.transition(tx, pid, "pending", "applied", now=now, by=by, run_id=run_id)
    audit.record(tx, "merge", [pair.winner, pair.loser], run_id=run_id, at=now, proposal=pid, by=by,
                 rule=pair.rule_text, winner=pair.winner, loser=pair.loser,
                 before={"winner": out[0]["before"], "loser_status": out[0]["loser_status"]},
                 after={"winner": out[0]["after"], "loser_status": "deprecated"})
    justification.premises_changed(tx, [pair.loser], op="merge", now=now, run_id=run_id,
                                   cause=f"{pair.loser} merged into {pair.winner} (proposal {pid})")
    return Decision.of(pid, KIND, Status.APPLIED, effect=MergeEffect(pair.winner, pair.loser))


def approve(p: Proposal[MergePayload], review: Review) -> Decision:
    """Apply a pending merge in one transaction; approving an applied one changes nothing."""
    return proposals.approve_once(
        review, p.id, KIND, MergePayload,
        lambda tx, locked: apply(tx, locked, now=review.now, run_id=audit.new_run_id("merge-approve"), by=review.by),
        unchanged=lambda locked: MergeEffect(locked.payload.winner, locked.payload.loser))


def reject(tx: Tx, p: Proposal[MergePayload], review: Review) -> None:
    """Nothing of the pair changes; the merge pass reads the rejection off the proposal."""


def revert(p: Proposal[MergePayload], review: Review) -> Decision:
    """Undo an applied merge; the SUPERSEDES edge stays, marked reverted."""
    pid, now, by, reason = p.id, review.now, review.by, review.reason
    run_id = audit.new_run_id("merge-revert")
    def work(tx: Tx) -> dict[str, Any]:
        proposals.transition(tx, pid, "applied", "reverted", now=now, by=by, reason=reason, run_id=run_id)
        out = tx.run("merge/revert", proposal_id=pid, now=now, run_id=run_id)
        row = out[0] if out else {}
        audit.record(tx, "merge_reverted", list(p.member_ids), run_id=run_id, at=now, proposal=pid, by=by,
                     rule="revert merge", reason=reason,
                     before={"winner": row.get("before"), "loser_status": row.get("loser_was")},
                     after={"winner": row.get("after"), "loser_status": row.get("loser_now")})
        if row.get("loser"):
            justification.premises_restored(tx, [row["loser"]], now=now, run_id=run_id,
                                            cause=f"merge {pid} reverted: {reason}")
        return row

    row = review.db.write(work)
    return Decision.of(pid, KIND, Status.REVERTED, reason=reason, effect=MergeEffect(row.get("winner"), row.get("loser")))
