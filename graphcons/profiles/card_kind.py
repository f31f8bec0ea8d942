"""The `card` proposal kind: apply a reviewed card to its subject's profile, or revert it.

Applying gives the profile its next version (a `ProfileVersion` snapshot, as a reflection does)
holding the card `{proposal_id, parser, items}`; the profile's statements stay as they are. An item
whose member changed or stopped being live since the proposal was made is left out and listed
(`dropped`): the card never cites what is no longer so. Reverting gives the profile the card it had
before, as a new version (history is kept); a card approved later must be reverted first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graphcons.core import audit
from graphcons.core.db import Tx
from graphcons.core.errors import Conflict
from graphcons.core.memory import LIVE_STATUSES
from graphcons.profiles import profile
from graphcons.profiles.card_pass import KIND
from graphcons.store import proposals
from graphcons.store.card import CardItem
from graphcons.store.proposals import Decision, Payload, ProfileEffect, Proposal, Review, Status


@dataclass(frozen=True, kw_only=True)
class CardPayload(Payload):
    """The card the job proposes (`_queue`): its items (`CardItem.to_dict()` each) and the parser that
    made them; `memories` (how many the subject had) stays in `rest`."""

    items: list[dict[str, Any]]
    parser: str

    def typed_items(self) -> list[CardItem]:
        return [CardItem.decode(i) for i in self.items or []]


PAYLOAD = CardPayload


def approve(p: Proposal[CardPayload], review: Review) -> Decision:
    """Apply a pending card in one transaction; approving an applied one changes nothing."""
    return proposals.approve_once(review, p.id, KIND, CardPayload, lambda tx, locked: _apply(tx, locked, review))


def reject(tx: Tx, p: Proposal[CardPayload], review: Review) -> None:
    """Nothing of the profile changes; the same card (same members, same versions) is not proposed again."""


def _apply(tx: Tx, locked: Proposal[CardPayload], review: Review) -> Decision:
    pid, by, now = locked.id, review.by, review.now
    versions = dict(locked.member_versions or {})
    now_are = {r["id"]: r for r in tx.run("proposals/member_versions", ids=sorted(versions))}
    fresh = {i for i, v in versions.items() if now_are[i]["version"] == v and now_are[i]["status"] in LIVE_STATUSES}
    items = locked.payload.typed_items()
    kept = [i.to_dict() for i in items if i.member_id in fresh]
    dropped = sorted({i.member_id for i in items} - fresh)
    card = {"proposal_id": pid, "parser": locked.payload.parser, "items": kept}
    namespace, subject = str(locked.namespace), str(locked.subject)
    before, version = profile.save_card(tx, namespace, subject, card, pid=pid, change="card", by=by, now=now)
    proposals.transition(tx, pid, "pending", "applied", now=now, by=by)
    tx.run("cards/applied", id=pid, profile_version=version, profile_version_before=before, kept=len(kept),
           dropped=dropped)
    audit.record(tx, "approve", [pid, profile.key(namespace, subject)], at=now, kind=KIND, by=by,
                 subject=subject, namespace=namespace, profile_version=version, items=len(kept), dropped=dropped)
    return Decision.of(pid, KIND, Status.APPLIED, effect=ProfileEffect(profile_version=version))


def revert(p: Proposal[CardPayload], review: Review) -> Decision:
    """Give the profile back the card it had before this one (a new version)."""
    pid, by, now, reason = p.id, review.by, review.now, review.reason
    namespace, subject = str(p.namespace), str(p.subject)

    def work(tx: Tx) -> int:
        cur = profile.current(tx, namespace, subject)
        if cur["card"].get("proposal_id") != pid:
            raise Conflict(f"card proposal {pid}: the profile of {subject!r} now holds the card of "
                           f"{cur['card'].get('proposal_id')!r}; revert that one first. Nothing was reverted.")
        proposals.transition(tx, pid, "applied", "reverted", now=now, by=by, reason=reason)
        before = int(p.profile_version_before or 0)
        rows = tx.run("profile/version", key=cur["key"], version=before) if before else []
        card = profile.decode_version(rows[0]["version"])["card"] if rows else {}
        _, version = profile.save_card(tx, namespace, subject, card, pid=pid, change=f"revert card to version {before}",
                                       by=by, now=now)
        audit.record(tx, "revert", [pid, cur["key"]], at=now, kind=KIND, by=by, reason=reason,
                     profile_version=version, restored_version=before)
        return version

    version = review.db.write(work)
    return Decision.of(pid, KIND, Status.REVERTED, reason=reason, effect=ProfileEffect(profile_version=version))
