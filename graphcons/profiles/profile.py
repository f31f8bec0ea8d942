"""Entity profiles (issue 14, seed 004): what the store holds about one entity, versioned.

A profile is one `(:Profile {key, subject, namespace, version, summary, preferences,
behaviors, facts, card, memory_ids, source_ids, updated_at})` per entity; each category is a JSON
list of entries `{id, statement, sources, proposals, status, contradicts, contradicted_by}`
where `id` is the semantic memory holding the statement and `sources` the memories it rests
on; `card` is the subject's approved card (graphcons.profiles.card_kind). Every update writes a
new version and a `(:ProfileVersion)` snapshot (`save`, a conditional write on the version it
read); nothing is overwritten. Reflections change the entries (graphcons.profiles.reflect_kind),
cards the card; each keeps the other's part as it is.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from graphcons.consolidation.synthesis.models import CATEGORIES
from graphcons.core.db import Database
from graphcons.core.errors import Conflict, NotFound, ValidationError
from graphcons.core.memory import LIVE_STATUSES


def key(namespace: str, subject: str) -> str:
    return f"{namespace}/{subject}"


# -- reading ----------------------------------------------------------------------------------------
def _decode(row: dict[str, Any]) -> dict[str, Any]:
    """A stored profile or version. A profile read by profile/get carries `retired` (its statement
    memories no longer live): such an entry takes that memory's status, so a merged, deprecated or
    reverted statement never reads as current (issue 50)."""
    out = dict(row)
    gone = {r["id"]: r["status"] for r in out.pop("retired", None) or []}
    out["card"] = json.loads(out["card"]) if isinstance(out.get("card"), str) else dict(out.get("card") or {})
    for c in CATEGORIES:
        out[c] = json.loads(out[c]) if isinstance(out.get(c), str) else list(out.get(c) or [])
        out[c] = [{**e, "status": gone[e["id"]]} if e.get("id") in gone else e for e in out[c]]
    return out


def decode_version(row: dict[str, Any]) -> dict[str, Any]:
    """A stored `ProfileVersion` (or profile) as a dict: categories and card decoded."""
    return _decode(row)


def empty(namespace: str, subject: str) -> dict[str, Any]:
    return {"key": key(namespace, subject), "subject": subject, "namespace": namespace, "version": 0,
            "summary": "", **{c: [] for c in CATEGORIES}, "card": {}, "memory_ids": [], "source_ids": []}


def current(runner: Any, namespace: str, subject: str) -> dict[str, Any]:
    """The entity's profile, or an empty one at version 0 (not written)."""
    rows = runner.run("profile/get", key=key(namespace, subject), live=LIVE_STATUSES)
    return _decode(rows[0]["profile"]) if rows else empty(namespace, subject)


def get(db: Database, subject: str, namespace: str = "default") -> dict[str, Any]:
    if not isinstance(subject, str) or not subject.strip():
        raise ValidationError("subject", "must be a non-empty string")
    rows = db.run("profile/get", key=key(namespace, subject), live=LIVE_STATUSES)
    if not rows:
        raise NotFound(f"no profile for {subject!r} in namespace {namespace!r}; reflect on it first "
                       f"(`graphcons reflect --subject {subject}`) and approve the proposal")
    return _decode(rows[0]["profile"])


def history(db: Database, subject: str, namespace: str = "default") -> list[dict[str, Any]]:
    get(db, subject, namespace)  # NotFound when there is none
    return [_decode(r["version"]) for r in db.run("profile/history", key=key(namespace, subject))]


# -- writing ----------------------------------------------------------------------------------------
def save(tx: Any, namespace: str, subject: str, fields: dict[str, Any], expected: int, *, pid: str, change: str,
         by: str, now: datetime) -> int:
    """Write the profile's next version with these fields, if it is still at `expected`: the new version."""
    mids = sorted({e["id"] for c in CATEGORIES for e in fields[c]})
    srcs = sorted({s for c in CATEGORIES for e in fields[c] for s in e["sources"]})
    stored = {"summary": fields.get("summary") or "", **{c: json.dumps(fields[c], sort_keys=True) for c in CATEGORIES},
              "card": json.dumps(fields.get("card") or {}, sort_keys=True)}
    rows = tx.run("profile/save", key=key(namespace, subject), subject=subject, namespace=namespace,
                  expected_version=expected, fields=stored, memory_ids=mids, source_ids=srcs, proposal_id=pid,
                  change=change, by=by, now=now)
    if not rows:
        raise Conflict(f"the profile of {subject!r} changed while proposal {pid} was applied; nothing was "
                       "written, approve it again")
    return rows[0]["version"]


def save_card(tx: Any, namespace: str, subject: str, card: dict[str, Any], *, pid: str, change: str, by: str,
              now: datetime) -> tuple[int, int]:
    """The profile's next version with this card and its entries as they are: (version before, after)."""
    cur = current(tx, namespace, subject)
    fields = {"summary": cur["summary"], **{c: cur[c] for c in CATEGORIES}, "card": card}
    return cur["version"], save(tx, namespace, subject, fields, cur["version"], pid=pid, change=change, by=by,
                                now=now)
