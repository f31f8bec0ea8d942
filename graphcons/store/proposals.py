"""The proposal record: every kind of proposal is one (:Proposal {id, kind, status}) node.

This module stores and reads proposals (one set of queries under cypher/proposals/) and types
them (issue 60): a `Proposal[P]` is the one decode of the stored node, `P` the payload type its
kind declares beside its concept (a `Payload` subclass), and `Proposal.to_dict()` the one shape
HTTP, MCP, the CLI and the TUI show. Every kind stores what it proposes as one JSON object under
`payload` (`nest_payloads`, below, moves the consolidate proposals of older stores there). A review
action takes one `Review` value and returns a `Decision`: the common fields and one typed effect.
The review workflow (approve, reject, revert, resynthesize, and which module applies which kind)
is graphcons.review.queue; the kinds themselves live with their concept.

Status moves only forward, one step at a time, by `transition`:
pending -> applied | rejected | stale, applied -> reverted. Nothing is deleted.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Mapping
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime
from enum import StrEnum
from typing import Any, Callable, Generic, TypeVar

from pydantic import BaseModel, PrivateAttr

from graphcons.core import audit
from graphcons.core.config import Config
from graphcons.core.db import Database, Tx
from graphcons.core.embedders import Embedder
from graphcons.core.errors import Conflict, NotFound, ValidationError
from graphcons.core.inputs import check_key
from graphcons.core.time import utcnow


class Status(StrEnum):
    """Where a proposal stands; `transition` is the only way it moves."""

    PENDING = "pending"
    APPLIED = "applied"
    REJECTED = "rejected"
    REVERTED = "reverted"
    STALE = "stale"


STATUSES = tuple(s.value for s in Status)
# The consolidate kind kept these at the top level before issue 60; a node not yet migrated
# (`nest_payloads` below) is read as if they were its payload.
FLAT_KIND = "consolidate"
FLAT_PAYLOAD = ("insight", "themes", "gate_figures", "context_ids", "confidence")


def _json(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


@dataclass(frozen=True, kw_only=True)
class Payload:
    """What a proposal proposes, stored as one JSON object under `payload`. Each kind declares a
    subclass beside its concept naming the fields it reads; `rest` keeps every other stored field
    as it is, only for the wire (a merge's score parts, a field an older store wrote)."""

    rest: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def decode(cls, stored: Mapping[str, Any]) -> Any:
        names = {f.name for f in fields(cls)} - {"rest"}
        return cls(**{n: stored.get(n) for n in names}, rest={k: v for k, v in stored.items() if k not in names})

    def to_dict(self) -> dict[str, Any]:
        """The stored JSON object (its keys sorted, as it is written). A typed field that is None was
        not stored (a kind types only fields it always writes; one it may write as null stays in `rest`)."""
        typed = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "rest"}
        typed = {k: v for k, v in typed.items() if v is not None}
        return dict(sorted({**self.rest, **typed}.items()))

    def stored(self) -> str:
        """The `payload` property as written: canonical JSON."""
        return json.dumps(self.to_dict(), sort_keys=True)

    def wire(self) -> dict[str, Any]:
        """What the payload adds to the proposal's wire shape."""
        return {"payload": self.to_dict()}


P = TypeVar("P", bound=Payload)


@dataclass(frozen=True, kw_only=True)
class Proposal(Generic[P]):
    """One stored proposal, decoded once (`decode`); `to_dict` is its one wire shape."""

    id: str
    kind: str
    status: Status
    namespace: str | None = None
    subject: str | None = None
    title: str | None = None
    run_id: str | None = None
    created_at: datetime | None = None
    member_ids: tuple[str, ...] = ()
    member_versions: Mapping[str, int] | None = None  # id -> the version proposed from
    payload: P
    # made by a model (consolidate, reflect): what it was shown and how its answer was checked
    cluster_key: str | None = None
    membership_hash: str | None = None
    provider: str | None = None
    model: str | None = None
    prompt_hash: str | None = None
    cited: tuple[str, ...] | None = None
    grounding: Mapping[str, Any] | None = None
    epistemic_status: str | None = None
    # the review trail (cypher/proposals/transition.cypher): who moved it, when and why
    reason: str | None = None  # why it was rejected
    reviewed_at: datetime | None = None
    reviewed_by: str | None = None
    review_run_id: str | None = None
    applied_at: datetime | None = None
    applied_by: str | None = None
    rejected_at: datetime | None = None
    rejected_by: str | None = None
    reverted_at: datetime | None = None
    reverted_by: str | None = None
    revert_reason: str | None = None
    stale_at: datetime | None = None
    replaced_by: str | None = None
    # what applying it did, kept on the node (an insight, a profile version and its statements, a card)
    insight_id: str | None = None
    profile_version: int | None = None
    profile_version_before: int | None = None
    created_ids: tuple[str, ...] | None = None
    confirmed_ids: tuple[str, ...] | None = None
    kept_items: int | None = None
    dropped_items: tuple[str, ...] | None = None
    # every other stored property (an update's `attribute` and `since`, copied from its payload for
    # Cypher to read), only for the wire; and the name the members are stored under (`member_ids`
    # for consolidate and reflect, `memory_ids` for the later kinds), which the wire keeps
    shown: Mapping[str, Any] = field(default_factory=dict)
    members_as: str | None = None
    has_payload: bool = True  # False: the node has none (a kind graphcons does not know), nor does the wire

    @classmethod
    def decode(cls, node: Mapping[str, Any], payloads: Mapping[str, type[Payload]] | None = None) -> Proposal[Any]:
        """The one decode of a stored (:Proposal) node; `payloads` names each kind's payload type
        (a kind not named gets the plain `Payload`)."""
        rest = dict(node)
        members_as = next((k for k in ("member_ids", "memory_ids") if k in rest), None)
        members = tuple(rest.pop(members_as, None) or ()) if members_as else ()
        raw: Any = {}
        has_payload = "payload" in rest
        if has_payload:
            raw = _json(rest.pop("payload"))
        elif rest.get("kind") == FLAT_KIND:
            raw, has_payload = {k: _json(rest.pop(k)) for k in FLAT_PAYLOAD if k in rest}, True
        ptype = (payloads or {}).get(str(rest.get("kind")), Payload)
        typed: dict[str, Any] = {}
        for f in fields(cls):
            if f.name in _NOT_STORED or f.name not in rest:
                continue
            value = _json(rest.pop(f.name)) if f.name in ("member_versions", "grounding") else rest.pop(f.name)
            typed[f.name] = tuple(value) if isinstance(value, list) else value
        if "budget" in rest:  # JSON text an early store may hold, shown decoded as it always was
            rest["budget"] = _json(rest["budget"])
        status = Status(typed.pop("status"))
        return cls(**typed, status=status, member_ids=members, members_as=members_as, has_payload=has_payload,
                   payload=ptype.decode(raw if isinstance(raw, Mapping) else {}), shown=rest)

    def heading(self) -> str:
        """What a list shows of it: its title (an early proposal without one: its summary or rule)."""
        return str(self.title or self.shown.get("summary") or self.shown.get("rule") or "")

    def to_dict(self, only: Collection[str] | None = None) -> dict[str, Any]:
        """The one wire shape: the stored properties (JSON ones decoded), absent ones left out; `only`:
        just those of its fields, in that order (a list's row)."""
        whole = self._wire()
        return whole if only is None else {k: whole[k] for k in only if k in whole}

    def _wire(self) -> dict[str, Any]:
        out = dict(self.shown)
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in _NOT_STORED or value is None:
                continue
            out[f.name] = list(value) if isinstance(value, tuple) else dict(value) if isinstance(value, Mapping) \
                else value.value if isinstance(value, Status) else value
        if self.members_as:
            out[self.members_as] = list(self.member_ids)
        return {**out, **(self.payload.wire() if self.has_payload else {})}


_NOT_STORED = {"member_ids", "payload", "shown", "members_as", "has_payload"}


@dataclass(frozen=True, kw_only=True)
class Review:
    """One review action's context: the one value every kind's approve, revert and reject take."""

    db: Database
    by: str
    now: datetime
    reason: str = ""  # reject and revert: why (checked and stripped by the queue)
    cfg: Config | None = None  # approve: a kind that writes memories reads its sections
    embedder: Callable[[], Embedder] | None = None  # approve: called only by a kind that embeds (it loads then)
    checkpoint: Callable[[str], None] | None = None  # approve: after each step inside the transaction (fault injection)

    def step(self, name: str) -> None:
        if self.checkpoint:
            self.checkpoint(name)

    def config(self) -> Config:
        if self.cfg is None:
            raise ValueError("this review action was given no configuration")
        return self.cfg

    def embed_with(self) -> Embedder:
        if self.embedder is None:
            raise ValueError("this review action was given no embedder")
        return self.embedder()


# -- what a review action did: one typed effect per kind ---------------------------------------------
@dataclass(frozen=True)
class InsightEffect:
    """consolidate: the insight created (or reverted) and its links."""

    insight_id: str | None = None
    summarizes: int = 0
    derived_from: int = 0
    links_kept: int = 0  # revert: links kept, marked reverted


@dataclass(frozen=True)
class MergeEffect:
    winner: str | None = None  # the memory that stays
    loser: str | None = None  # the memory deprecated (or restored by revert)


@dataclass(frozen=True)
class UpdateEffect:
    newer: str | None = None  # issue 51: the memory stating the current value
    older: str | None = None  # the memory whose value it supersedes (it stays as it was)


@dataclass(frozen=True)
class ProfileEffect:
    """reflect and card (issue 14): the profile version written, semantic memories created / confirmed,
    memories marked consolidated (or given their earlier status back by a revert)."""

    profile_version: int | None = None
    created: list[str] = field(default_factory=list)
    confirmed: list[str] = field(default_factory=list)
    consolidated: int = 0
    derived_from: int = 0
    links_kept: int = 0


Effect = InsightEffect | MergeEffect | UpdateEffect | ProfileEffect


class Decision(BaseModel):
    """What one review action did to one proposal, for every kind."""

    # The common fields and the kind's typed `effect`; the wire keeps each effect's fields flat, as
    # before issue 60 (HTTP's schema may only gain fields): `Decision.of` fills them from the effect.

    proposal_id: str
    kind: str
    status: str  # the proposal's status after the action
    changed: bool  # False: it was already in that state, nothing was written
    insight_id: str | None = None
    summarizes: int = 0
    derived_from: int = 0
    links_kept: int = 0
    winner: str | None = None
    loser: str | None = None
    reason: str | None = None
    newer: str | None = None
    older: str | None = None
    profile_version: int | None = None
    created: list[str] = []
    confirmed: list[str] = []
    consolidated: int = 0
    _effect: Effect | None = PrivateAttr(default=None)

    @classmethod
    def of(cls, proposal_id: str, kind: str, status: str, *, changed: bool = True, reason: str | None = None,
           effect: Effect | None = None) -> Decision:
        made = cls(proposal_id=proposal_id, kind=kind, status=str(status), changed=changed, reason=reason,
                   **(asdict(effect) if effect is not None else {}))
        made._effect = effect
        return made

    @property
    def effect(self) -> Effect | None:
        return self._effect


def digest_id(prefix: str, *parts: str) -> str:
    """A deterministic proposal id: the same proposal (same kind, same content) gets the same id."""
    return prefix + hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


Payloads = Mapping[str, type[Payload]]


def create(runner: Any, props: dict[str, Any], members: list[dict[str, Any]]) -> bool:
    """Queue a pending proposal once per id, with ABOUT {version} to each member; False if it existed."""
    return bool(runner.run("proposals/create", props={**props, "status": "pending"}, members=members))


def create_many(runner: Any, items: list[tuple[dict[str, Any], list[dict[str, Any]]]]) -> int:
    """`create` for many (props, members) in one statement; how many were new."""
    if not items:
        return 0
    return len(runner.run("proposals/create_many", rows=[{"props": {**props, "status": "pending"}, "members": members}
                                                          for props, members in items]))


def get(runner: Any, pid: str, payloads: Payloads | None = None) -> Proposal[Any]:
    rows = runner.run("proposals/get", id=check_key("proposal_id", pid))
    if not rows:
        raise NotFound(f"no proposal with id {pid!r}")
    return Proposal.decode(rows[0]["proposal"], payloads)


def lock(tx: Any, pid: str, payloads: Payloads | None = None) -> Proposal[Any]:
    """Take the proposal's write lock for the rest of the transaction and read its committed state."""
    rows = tx.run("proposals/lock", id=pid)
    if not rows:
        raise NotFound(f"no proposal with id {pid!r}")
    return Proposal.decode(rows[0]["proposal"], payloads)


def approve_once(review: Review, pid: str, kind: str, payload: type[P], apply: Callable[[Tx, Proposal[P]], Decision],
                 *, unchanged: Callable[[Proposal[P]], Effect] | None = None) -> Decision:
    """Lock a proposal and `apply` its committed state, in one transaction, when it is pending; when it
    is applied already, the unchanged Decision (with the effect `unchanged` reads off it); Conflict
    otherwise. `review.step("proposal")` runs once applied, before the commit."""
    def work(tx: Tx) -> Decision:
        locked = lock(tx, pid, {kind: payload})
        if locked.status == Status.APPLIED:
            return Decision.of(pid, kind, Status.APPLIED, changed=False,
                               effect=unchanged(locked) if unchanged else None)
        if locked.status != Status.PENDING:
            raise Conflict(f"{kind} proposal {pid!r} is {locked.status}, not pending")
        decision = apply(tx, locked)
        review.step("proposal")
        return decision

    return review.db.write(work)


def propose_and_apply(db: Database, pid: str, propose: Callable[[Tx], Any],
                      apply: Callable[[Tx, Proposal[Any]], Any], payloads: Payloads | None = None) -> bool:
    """Queue a proposal and apply it in one transaction (a pass's auto-apply); False when applying
    raised Conflict (a memory stopped being live meanwhile): nothing is written then."""
    def work(tx: Tx) -> None:
        propose(tx)
        locked = lock(tx, pid, payloads)
        if locked.status == Status.PENDING:  # another worker or a reviewer may have settled it
            apply(tx, locked)

    try:
        db.write(work)
    except Conflict:
        return False
    return True


def list_(db: Database, *, status: str | None = None, kind: str | None = None, limit: int = 100,
          namespaces: list[str] | None = None, payloads: Payloads | None = None) -> list[Proposal[Any]]:
    if status is not None and status not in STATUSES:
        raise ValidationError("status", f"unknown value {status!r}; allowed: {', '.join(STATUSES)}")
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise ValidationError("limit", "must be a positive integer")
    return [Proposal.decode(r["proposal"], payloads)
            for r in db.run("proposals/list", status=status, kind=kind, limit=limit, namespaces=namespaces)]


def resolve(db: Database, any_id: str, payloads: Payloads | None = None) -> Proposal[Any]:
    """A proposal by its id, or the proposal that created an insight (by the insight's id)."""
    rows = db.run("proposals/get", id=any_id)
    if rows:
        return Proposal.decode(rows[0]["proposal"], payloads)
    mem = db.run("memory/get", id=any_id)
    if mem and mem[0]["memory"].get("proposal_id"):
        return get(db, mem[0]["memory"]["proposal_id"], payloads)
    raise NotFound(f"no proposal (or insight made by one) with id {any_id!r}")


def transition(tx: Any, pid: str, expected: str, status: str, *, now: datetime, by: str,
               reason: str | None = None, run_id: str | None = None, insight_id: str | None = None,
               replaced_by: str | None = None) -> Proposal[Any]:
    """Move a proposal one step; Conflict (naming the status found) when it is no longer in the expected
    status. The lock comes first and the status is read under it: a status read before the lock is what
    let a reject that waited behind an approval overwrite it (two winners, issue 59)."""
    found = lock(tx, pid).status
    if found != expected:
        raise Conflict(f"proposal {pid} is {found}, not {expected}: another review changed it first; "
                       "nothing was written")
    rows = tx.run("proposals/transition", id=pid, expected=expected, status=status, now=now, by=by, reason=reason,
                  run_id=run_id, insight_id=insight_id, replaced_by=replaced_by)
    if not rows:
        raise Conflict(f"proposal {pid} is no longer {expected}; it changed meanwhile, nothing was written")
    return Proposal.decode(rows[0]["proposal"])


# -- issue 60: one place for every kind's payload -------------------------------------------------------
# Before issue 60 the consolidate kind kept what it proposes at the proposal's top level (the others under
# `payload`). `nest_payloads` moves it under `payload` (init runs it); `flatten_payloads` moves it back, as
# graphcons stored it before, for a checkout older than issue 60. Each batch commits alone and is audited;
# a proposal already in the wanted shape is skipped, so a run resumes and a second run changes nothing.
_FLAT_JSON = ("insight", "themes", "gate_figures")  # stored as JSON text at the top level


def _loaded(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def nest_payloads(db: Database, *, batch: int = 500) -> int:
    """Fold the top-level payload fields of older consolidate proposals into `payload`; how many moved."""
    moved = 0
    while rows := db.run("proposals/flat_payloads", kind=FLAT_KIND, batch=batch):
        nested = [{"id": r["id"], "payload": json.dumps({k: _loaded(r[k]) for k in FLAT_PAYLOAD if r[k] is not None},
                                                      sort_keys=True)} for r in rows]
        n = _moved(db, "proposals/nest_payloads", nested, "nest")
        if not n:  # none of the batch was moved (another writer's meanwhile): the next read finds the rest
            break
        moved += n
    return moved


def flatten_payloads(db: Database, *, batch: int = 500) -> int:
    """`nest_payloads` undone: consolidate proposals stored as before issue 60; how many moved."""
    moved = 0
    while rows := db.run("proposals/nested_payloads", kind=FLAT_KIND, batch=batch):
        flat = []
        for r in rows:
            payload = _loaded(r["payload"]) or {}
            flat.append({"id": r["id"], "flat": {
                k: (json.dumps(payload.get(k), sort_keys=True) if k in _FLAT_JSON else payload.get(k))
                for k in FLAT_PAYLOAD if payload.get(k) is not None}})
        n = _moved(db, "proposals/flatten_payloads", flat, "flatten")
        if not n:
            break
        moved += n
    return moved


def _moved(db: Database, query: str, rows: list[dict[str, Any]], direction: str) -> int:
    now = utcnow()  # when the audit says it moved; nothing decides by it

    def work(tx: Tx, now: datetime = now) -> int:
        n = tx.run(query, rows=rows)[0]["moved"]
        audit.record(tx, "migrate_payloads", [r["id"] for r in rows], at=now, direction=direction, kind=FLAT_KIND,
                     fields=list(FLAT_PAYLOAD), moved=n)
        return n

    return db.write(work)
