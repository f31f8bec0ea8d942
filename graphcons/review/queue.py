"""The one review queue (principle 2, seed 000 "One atomic, human-gated proposal").

Every kind of proposal waits here as a pending (:Proposal); a person (or a script) lists,
shows, approves, rejects or reverts it, and a stale consolidation is re-synthesized. The
queue checks the status and the input, then hands the proposal to its kind, named in one
explicit table:

    consolidate  graphcons.consolidation.insight   an insight with SUMMARIZES / DERIVED_FROM
    merge        graphcons.maintenance.merge.review  (winner)-[:SUPERSEDES]->(loser)
    reflect      graphcons.profiles.reflect_kind   an entity profile version + semantic memories
    card         graphcons.profiles.card_kind      a profile version holding the subject's card
    update       graphcons.maintenance.updates.review  (newer)-[:SUPERSEDES {reason: 'update'}]->(older)

Approval applies one proposal in one transaction; approving twice changes nothing; a
rejected proposal is kept with its reason; revert undoes an applied one and keeps every
link. Each action returns a typed `Decision` and is audited.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable, Protocol

from graphcons.consolidation import consolidate, insight
from graphcons.consolidation.synthesis import Synthesizer
from graphcons.core import audit
from graphcons.core.config import Config
from graphcons.core.db import Database, Tx
from graphcons.core.embedders import Embedder
from graphcons.core.errors import Conflict, ValidationError
from graphcons.core.inputs import check_text
from graphcons.maintenance.merge import review as merge_review
from graphcons.maintenance.updates import review as update_review
from graphcons.profiles import card_kind, reflect_kind
from graphcons.store import proposals
from graphcons.store.proposals import Decision, Payload, Proposal, Review, Status


class Kind(Protocol):
    """How one kind of proposal is applied, undone and rejected: a module beside its concept."""

    KIND: str
    PAYLOAD: type[Payload]  # what its proposals carry under `payload`

    def approve(self, p: Proposal[Any], review: Review) -> Decision: ...

    def revert(self, p: Proposal[Any], review: Review) -> Decision: ...

    def reject(self, tx: Tx, p: Proposal[Any], review: Review) -> None: ...  # inside reject's transaction


KINDS: dict[str, Kind] = {kind.KIND: kind for kind in (insight, merge_review, reflect_kind, card_kind, update_review)}
PAYLOADS = {name: kind.PAYLOAD for name, kind in KINDS.items()}


def get(db: Database, pid: str) -> Proposal[Any]:
    """One proposal, its payload typed by its kind."""
    return proposals.get(db, pid, PAYLOADS)


def list_(db: Database, *, status: str | None = None, kind: str | None = None, limit: int = 100,
          namespaces: list[str] | None = None) -> list[Proposal[Any]]:
    return proposals.list_(db, status=status, kind=kind, limit=limit, namespaces=namespaces, payloads=PAYLOADS)


def _kind(p: Proposal[Any]) -> Kind:
    kind = KINDS.get(p.kind)
    if kind is None:
        raise Conflict(f"proposal {p.id} is a {p.kind!r} proposal; graphcons knows the kinds "
                       f"{', '.join(sorted(KINDS))}")
    return kind


def _why(reason: str, verb: str) -> str:
    if not isinstance(reason, str) or not reason.strip():
        raise ValidationError("reason", f"say why the proposal is {verb}")
    check_text("reason", reason)  # the one input policy (core/inputs.py)
    return reason.strip()


def approve(db: Database, cfg: Config, embedder: Callable[[], Embedder], pid: str, *, by: str, now: datetime,
            checkpoint: Callable[[str], None] | None = None) -> Decision:
    """Apply a pending proposal of any kind in one transaction (approving twice changes nothing).
    `embedder()` is called only for a kind that embeds what it writes."""
    p = get(db, pid)
    kind = _kind(p)
    if p.status == Status.APPLIED:
        return Decision.of(pid, p.kind, Status.APPLIED, changed=False,
                           effect=proposals.InsightEffect(p.insight_id) if p.insight_id else None)
    if p.status != Status.PENDING:
        raise Conflict(f"proposal {pid} is {p.status}; only a pending proposal can be approved")
    return kind.approve(p, Review(db=db, cfg=cfg, embedder=embedder, by=by, now=now, checkpoint=checkpoint))


def reject(db: Database, pid: str, reason: str, *, by: str, now: datetime) -> Decision:
    """Reject a pending proposal; it is kept with who rejected it, when and why."""
    why = _why(reason, "rejected")
    p = get(db, pid)
    kind = _kind(p)
    if p.status == Status.REJECTED:
        return Decision.of(pid, p.kind, Status.REJECTED, changed=False, reason=p.reason)
    if p.status != Status.PENDING:
        raise Conflict(f"proposal {pid} is {p.status}; only a pending proposal can be rejected"
                       + (" (revert an applied one)" if p.status == Status.APPLIED else ""))
    review = Review(db=db, by=by, now=now, reason=why)

    def work(tx: Tx) -> None:
        proposals.transition(tx, pid, "pending", "rejected", now=now, by=by, reason=why)
        kind.reject(tx, p, review)
        audit.record(tx, "reject", [pid, *p.member_ids], at=now, kind=p.kind, by=by, reason=why)

    db.write(work)
    return Decision.of(pid, p.kind, Status.REJECTED, reason=why)


def revert(db: Database, any_id: str, reason: str, *, by: str, now: datetime) -> Decision:
    """Undo an applied proposal (by its id, or an insight's id); reverting twice changes nothing."""
    why = _why(reason, "reverted")
    p = proposals.resolve(db, any_id, PAYLOADS)
    kind = _kind(p)
    if p.status == Status.REVERTED:
        return Decision.of(p.id, p.kind, Status.REVERTED, changed=False, reason=p.revert_reason,
                           effect=proposals.InsightEffect(p.insight_id) if p.insight_id else None)
    if p.status != Status.APPLIED:
        raise Conflict(f"proposal {p.id} is {p.status}; only an applied proposal can be reverted")
    return kind.revert(p, Review(db=db, by=by, now=now, reason=why))


def resynthesize(db: Database, cfg: Config, pid: str, *, now: datetime,
                 synthesizer: Synthesizer | None = None) -> consolidate.Outcome:
    """Re-synthesize a stale consolidation from its members' current versions (a new proposal)."""
    p = get(db, pid)
    if p.kind != insight.KIND:
        raise Conflict(f"proposal {pid} is a {p.kind!r} proposal, not a consolidation")
    return consolidate.resynthesize(db, cfg, p, synthesizer=synthesizer, now=now)
