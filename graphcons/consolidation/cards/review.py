"""The `card` proposal kind: apply a reviewed card to its subject's profile, or revert it.

Applying gives the profile its next version (a `ProfileVersion` snapshot, as a reflection does)
holding the card `{proposal_id, parser, items}`; the profile's statements stay as they are. An item
whose member changed or stopped being live since the proposal was made is left out and listed
(`dropped`): the card never cites what is no longer so. Reverting gives the profile the card it had
before, as a new version (history is kept); a card approved later must be reverted first.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

from graphcons.consolidation import profile
from graphcons.consolidation.cards.job import KIND
from graphcons.core import audit
from graphcons.core.db import Database, Tx
from graphcons.core.errors import Conflict
from graphcons.core.memory import LIVE_STATUSES
from graphcons.store import proposals
from graphcons.store.proposals import Decision


def approve(db: Database, p: dict[str, Any], *, by: str, now: datetime,
            checkpoint: Callable[[str], None] | None = None) -> Decision:
    """Apply a pending card in one transaction; approving an applied one changes nothing."""
    return proposals.approve_once(db, p["id"], KIND, lambda tx, locked: _apply(tx, locked, by=by, now=now),
                                 checkpoint=checkpoint)


def _apply(tx: Tx, locked: dict[str, Any], *, by: str, now: datetime) -> Decision:
    pid = locked["id"]
    versions: dict[str, int] = locked["member_versions"]
    now_are = {r["id"]: r for r in tx.run("proposals/member_versions", ids=sorted(versions))}
    fresh = {i for i, v in versions.items() if now_are[i]["version"] == v and now_are[i]["status"] in LIVE_STATUSES}
    items = locked["payload"]["items"]
    kept = [i for i in items if i["member_id"] in fresh]
    dropped = sorted({i["member_id"] for i in items} - fresh)
    card = {"proposal_id": pid, "parser": locked["payload"]["parser"], "items": kept}
    before, version = profile.save_card(tx, locked, card, pid=pid, change="card", by=by, now=now)
    proposals.transition(tx, pid, "pending", "applied", now=now, by=by)
    tx.run("cards/applied", id=pid, profile_version=version, profile_version_before=before, kept=len(kept),
           dropped=dropped)
    audit.record(tx, "approve", [pid, profile.key(locked["namespace"], locked["subject"])], at=now, kind=KIND, by=by,
                 subject=locked["subject"], namespace=locked["namespace"], profile_version=version, items=len(kept),
                 dropped=dropped)
    return Decision(proposal_id=pid, kind=KIND, status="applied", changed=True, profile_version=version)


def revert(db: Database, p: dict[str, Any], reason: str, *, by: str, now: datetime) -> Decision:
    """Give the profile back the card it had before this one (a new version)."""
    pid = p["id"]

    def work(tx: Tx) -> int:
        cur = profile.current(tx, p["namespace"], p["subject"])
        if cur["card"].get("proposal_id") != pid:
            raise Conflict(f"card proposal {pid}: the profile of {p['subject']!r} now holds the card of "
                           f"{cur['card'].get('proposal_id')!r}; revert that one first. Nothing was reverted.")
        proposals.transition(tx, pid, "applied", "reverted", now=now, by=by, reason=reason)
        before = int(p.get("profile_version_before") or 0)
        rows = tx.run("profile/version", key=cur["key"], version=before) if before else []
        card = profile.decode_version(rows[0]["version"])["card"] if rows else {}
        _, version = profile.save_card(tx, p, card, pid=pid, change=f"revert card to version {before}", by=by, now=now)
        audit.record(tx, "revert", [pid, cur["key"]], at=now, kind=KIND, by=by, reason=reason,
                     profile_version=version, restored_version=before)
        return version

    version = db.write(work)
    return Decision(proposal_id=pid, kind=KIND, status="reverted", changed=True, reason=reason, profile_version=version)
