"""The proposal record: every kind of proposal is one (:Proposal {id, kind, status}) node.

This module only stores and reads proposals (one set of queries under cypher/proposals/)
and defines the typed result of a review action. The review workflow (approve, reject,
revert, resynthesize, and which module applies which kind) is graphcons.review.queue; the
kinds themselves live with their concept (consolidation.insight, maintenance.merge.review).

Status moves only forward, one step at a time, by `transition`:
pending -> applied | rejected | stale, applied -> reverted. Nothing is deleted.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any, Callable

from pydantic import BaseModel

from graphcons.core.db import Database, Tx
from graphcons.core.errors import Conflict, NotFound, ValidationError
from graphcons.core.inputs import check_key

STATUSES = ("pending", "applied", "rejected", "reverted", "stale")
JSON_FIELDS = ("insight", "themes", "member_versions", "gate_figures", "grounding", "budget", "payload")


class Decision(BaseModel):
    """What one review action did to one proposal, for every kind."""

    proposal_id: str
    kind: str
    status: str  # the proposal's status after the action
    changed: bool  # False: it was already in that state, nothing was written
    insight_id: str | None = None  # consolidate: the insight created (or reverted)
    summarizes: int = 0
    derived_from: int = 0
    links_kept: int = 0  # revert: links kept, marked reverted
    winner: str | None = None  # merge: the memory that stays
    loser: str | None = None  # merge: the memory deprecated (or restored by revert)
    reason: str | None = None
    newer: str | None = None  # update (issue 51): the memory stating the current value
    older: str | None = None  # update: the memory whose value it supersedes (it stays as it was)
    # reflect (issue 14): the profile version written, semantic memories created / confirmed,
    # memories marked consolidated (or given their earlier status back by a revert).
    profile_version: int | None = None
    created: list[str] = []
    confirmed: list[str] = []
    consolidated: int = 0


def digest_id(prefix: str, *parts: str) -> str:
    """A deterministic proposal id: the same proposal (same kind, same content) gets the same id."""
    return prefix + hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


def decode(row: dict[str, Any]) -> dict[str, Any]:
    out = dict(row)
    for key in JSON_FIELDS:
        if isinstance(out.get(key), str):
            try:
                out[key] = json.loads(out[key])
            except json.JSONDecodeError:
                pass
    return out


def create(runner: Any, props: dict[str, Any], members: list[dict[str, Any]]) -> bool:
    """Queue a pending proposal once per id, with ABOUT {version} to each member; False if it existed."""
    return bool(runner.run("proposals/create", props={**props, "status": "pending"}, members=members))


def create_many(runner: Any, items: list[tuple[dict[str, Any], list[dict[str, Any]]]]) -> int:
    """`create` for many (props, members) in one statement; how many were new."""
    if not items:
        return 0
    return len(runner.run("proposals/create_many", rows=[{"props": {**props, "status": "pending"}, "members": members}
                                                          for props, members in items]))


def get(runner: Any, pid: str) -> dict[str, Any]:
    rows = runner.run("proposals/get", id=check_key("proposal_id", pid))
    if not rows:
        raise NotFound(f"no proposal with id {pid!r}")
    return decode(rows[0]["proposal"])


def lock(tx: Any, pid: str) -> dict[str, Any]:
    """Take the proposal's write lock for the rest of the transaction and read its committed state."""
    rows = tx.run("proposals/lock", id=pid)
    if not rows:
        raise NotFound(f"no proposal with id {pid!r}")
    return decode(rows[0]["proposal"])


def approve_once(db: Database, pid: str, kind: str, apply: Callable[[Tx, dict[str, Any]], Decision], *,
                 keep: tuple[str, ...] = (), checkpoint: Callable[[str], None] | None = None) -> Decision:
    """Lock a proposal and `apply` its committed state, in one transaction, when it is pending; when it
    is applied already, the unchanged Decision (carrying the payload's `keep` fields); Conflict otherwise.
    `checkpoint("proposal")` runs once applied, before the commit (as the insight kind's steps do)."""
    def work(tx: Tx) -> Decision:
        locked = lock(tx, pid)
        if locked["status"] == "applied":
            return Decision(proposal_id=pid, kind=kind, status="applied", changed=False,
                            **{k: locked["payload"][k] for k in keep})
        if locked["status"] != "pending":
            raise Conflict(f"{kind} proposal {pid!r} is {locked['status']}, not pending")
        decision = apply(tx, locked)
        if checkpoint:
            checkpoint("proposal")
        return decision

    return db.write(work)


def propose_and_apply(db: Database, pid: str, propose: Callable[[Tx], Any],
                      apply: Callable[[Tx, dict[str, Any]], Any]) -> bool:
    """Queue a proposal and apply it in one transaction (a pass's auto-apply); False when applying
    raised Conflict (a memory stopped being live meanwhile): nothing is written then."""
    def work(tx: Tx) -> None:
        propose(tx)
        locked = lock(tx, pid)
        if locked["status"] == "pending":  # another worker or a reviewer may have settled it
            apply(tx, locked)

    try:
        db.write(work)
    except Conflict:
        return False
    return True


def list_(db: Database, *, status: str | None = None, kind: str | None = None, limit: int = 100,
          namespaces: list[str] | None = None) -> list[dict[str, Any]]:
    if status is not None and status not in STATUSES:
        raise ValidationError("status", f"unknown value {status!r}; allowed: {', '.join(STATUSES)}")
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise ValidationError("limit", "must be a positive integer")
    return [decode(r["proposal"]) for r in db.run("proposals/list", status=status, kind=kind, limit=limit,
                                                     namespaces=namespaces)]


def resolve(db: Database, any_id: str) -> dict[str, Any]:
    """A proposal by its id, or the proposal that created an insight (by the insight's id)."""
    rows = db.run("proposals/get", id=any_id)
    if rows:
        return decode(rows[0]["proposal"])
    mem = db.run("memory/get", id=any_id)
    if mem and mem[0]["memory"].get("proposal_id"):
        return get(db, mem[0]["memory"]["proposal_id"])
    raise NotFound(f"no proposal (or insight made by one) with id {any_id!r}")


def transition(tx: Any, pid: str, expected: str, status: str, *, now: datetime, by: str,
               reason: str | None = None, run_id: str | None = None, insight_id: str | None = None,
               replaced_by: str | None = None) -> dict[str, Any]:
    """Move a proposal one step; Conflict (naming the status found) when it is no longer in the expected
    status. The lock comes first and the status is read under it: a status read before the lock is what
    let a reject that waited behind an approval overwrite it (two winners, issue 59)."""
    found = lock(tx, pid)["status"]
    if found != expected:
        raise Conflict(f"proposal {pid} is {found}, not {expected}: another review changed it first; "
                       "nothing was written")
    rows = tx.run("proposals/transition", id=pid, expected=expected, status=status, now=now, by=by, reason=reason,
                  run_id=run_id, insight_id=insight_id, replaced_by=replaced_by)
    if not rows:
        raise Conflict(f"proposal {pid} is no longer {expected}; it changed meanwhile, nothing was written")
    return decode(rows[0]["proposal"])
