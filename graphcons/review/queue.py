"""The one review queue (principle 2, seed 000 "One atomic, human-gated proposal").

Every kind of proposal waits here as a pending (:Proposal); a person (or a script) lists,
shows, approves, rejects or reverts it, and a stale consolidation is re-synthesized. The
queue checks the status and the input, then hands the proposal to its kind, named in one
explicit table:

    consolidate  graphcons.consolidation.insight   an insight with SUMMARIZES / DERIVED_FROM
    merge        graphcons.maintenance.merge.review  (winner)-[:SUPERSEDES]->(loser)
    reflect      graphcons.consolidation.profile   an entity profile version + semantic memories
    card         graphcons.consolidation.cards.review  a profile version holding the subject's card
    update       graphcons.maintenance.updates.review  (newer)-[:SUPERSEDES {reason: 'update'}]->(older)

Approval applies one proposal in one transaction; approving twice changes nothing; a
rejected proposal is kept with its reason; revert undoes an applied one and keeps every
link. Each action returns a typed `Decision` and is audited.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable

from graphcons.consolidation import consolidate, insight, profile
from graphcons.consolidation.cards import review as card_review
from graphcons.consolidation.synthesis import Synthesizer
from graphcons.core import audit
from graphcons.core.config import Config
from graphcons.core.db import Database, Tx
from graphcons.core.embedders import Embedder
from graphcons.core.errors import Conflict, ValidationError
from graphcons.core.inputs import check_text
from graphcons.maintenance.merge import review as merge_review
from graphcons.maintenance.updates import review as update_review
from graphcons.store import proposals
from graphcons.store.proposals import Decision

get = proposals.get
list_ = proposals.list_


@dataclass(frozen=True)
class Kind:
    """How one kind of proposal is applied and undone."""

    approve: Callable[..., Decision]  # (db, cfg, embedder, proposal, *, by, now, checkpoint) -> Decision
    revert: Callable[..., Decision]  # (db, proposal, reason, *, by, now) -> Decision
    on_reject: Callable[[Any, dict[str, Any], str, datetime], None] | None = None  # inside reject's transaction
    embeds: bool = False  # applying writes memories that need embedding (the embedder loads only then)


KINDS: dict[str, Kind] = {
    insight.KIND: Kind(approve=insight.approve, revert=insight.revert, on_reject=insight.on_reject, embeds=True),
    merge_review.KIND: Kind(approve=lambda db, cfg, emb, p, *, by, now, checkpoint=None:
                            merge_review.approve(db, p, by=by, now=now, checkpoint=checkpoint),
                            revert=merge_review.revert),
    profile.KIND: Kind(approve=profile.approve, revert=profile.revert, embeds=True),
    card_review.KIND: Kind(approve=lambda db, cfg, emb, p, *, by, now, checkpoint=None:
                            card_review.approve(db, p, by=by, now=now, checkpoint=checkpoint),
                           revert=card_review.revert),
    update_review.KIND: Kind(approve=lambda db, cfg, emb, p, *, by, now, checkpoint=None:
                            update_review.approve(db, p, by=by, now=now, checkpoint=checkpoint),
                             revert=update_review.revert),
}


def _kind(p: dict[str, Any]) -> Kind:
    kind = KINDS.get(p.get("kind"))
    if kind is None:
        raise Conflict(f"proposal {p['id']} is a {p.get('kind')!r} proposal; graphcons knows the kinds "
                       f"{', '.join(sorted(KINDS))}")
    return kind


def approve(db: Database, cfg: Config, embedder: Callable[[], Embedder], pid: str, *, by: str, now: datetime,
            checkpoint: Callable[[str], None] | None = None) -> Decision:
    """Apply a pending proposal of any kind in one transaction (approving twice changes nothing).
    `embedder()` is called only for a kind that embeds what it writes."""
    p = get(db, pid)
    kind = _kind(p)
    if p["status"] == "applied":
        return Decision(proposal_id=pid, kind=p["kind"], status="applied", changed=False, insight_id=p.get("insight_id"))
    if p["status"] != "pending":
        raise Conflict(f"proposal {pid} is {p['status']}; only a pending proposal can be approved")
    return kind.approve(db, cfg, embedder() if kind.embeds else None, p, by=by, now=now, checkpoint=checkpoint)


def reject(db: Database, pid: str, reason: str, *, by: str, now: datetime) -> Decision:
    """Reject a pending proposal; it is kept with who rejected it, when and why."""
    if not isinstance(reason, str) or not reason.strip():
        raise ValidationError("reason", "say why the proposal is rejected")
    check_text("reason", reason)  # the one input policy (core/inputs.py)
    p = get(db, pid)
    kind = _kind(p)
    if p["status"] == "rejected":
        return Decision(proposal_id=pid, kind=p["kind"], status="rejected", changed=False, reason=p.get("reason"))
    if p["status"] != "pending":
        raise Conflict(f"proposal {pid} is {p['status']}; only a pending proposal can be rejected"
                       + (" (revert an applied one)" if p["status"] == "applied" else ""))
    def work(tx: Tx) -> None:
        proposals.transition(tx, pid, "pending", "rejected", now=now, by=by, reason=reason.strip())
        if kind.on_reject:
            kind.on_reject(tx, p, reason.strip(), now)
        audit.record(tx, "reject", [pid, *(p.get("member_ids") or p.get("memory_ids") or [])], at=now,
                     kind=p["kind"], by=by, reason=reason.strip())

    db.write(work)
    return Decision(proposal_id=pid, kind=p["kind"], status="rejected", changed=True, reason=reason.strip())


def revert(db: Database, any_id: str, reason: str, *, by: str, now: datetime) -> Decision:
    """Undo an applied proposal (by its id, or an insight's id); reverting twice changes nothing."""
    if not isinstance(reason, str) or not reason.strip():
        raise ValidationError("reason", "say why the proposal is reverted")
    check_text("reason", reason)  # the one input policy (core/inputs.py)
    p = proposals.resolve(db, any_id)
    kind = _kind(p)
    if p["status"] == "reverted":
        return Decision(proposal_id=p["id"], kind=p["kind"], status="reverted", changed=False,
                        insight_id=p.get("insight_id"), reason=p.get("revert_reason"))
    if p["status"] != "applied":
        raise Conflict(f"proposal {p['id']} is {p['status']}; only an applied proposal can be reverted")
    return kind.revert(db, p, reason.strip(), by=by, now=now)


def resynthesize(db: Database, cfg: Config, pid: str, *, now: datetime,
                 synthesizer: Synthesizer | None = None) -> consolidate.Outcome:
    """Re-synthesize a stale consolidation from its members' current versions (a new proposal)."""
    p = get(db, pid)
    if p.get("kind") != insight.KIND:
        raise Conflict(f"proposal {pid} is a {p.get('kind')!r} proposal, not a consolidation")
    return consolidate.resynthesize(db, cfg, p, synthesizer=synthesizer, now=now)
