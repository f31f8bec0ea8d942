"""Conflicts the merge guard found: list them, and let a person settle one.

Resolving keeps both memories (nothing is deprecated or deleted) and records on the
`CONFLICTS_WITH` link which memory holds, where (a scope such as "EU region" or "after
2026-01"; empty = everywhere) and why; a resolved conflict can be reopened. Both are audited.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graphcons.core import audit
from graphcons.core.db import Database, Tx
from graphcons.core.errors import Conflict, NotFound, ValidationError
from graphcons.core.time import require_aware

STATUSES = ("open", "resolved")


def list_conflicts(db: Database, *, status: str | None = "open", limit: int = 100,
                   namespaces: list[str] | None = None) -> list[dict[str, Any]]:
    if status is not None and status not in STATUSES:
        raise ValidationError("status", f"expected one of {', '.join(STATUSES)} or none, got {status!r}")
    return db.run("merge/conflicts_list", status=status, limit=limit, namespaces=namespaces)


def resolve(db: Database, a: str, b: str, *, holds: str, scope: str = "", note: str = "", by: str,
            now: datetime) -> dict[str, Any]:
    """Settle the open conflict between `a` and `b`: `holds` (a or b, or "both" when each holds in its
    own scope) is recorded with `scope` and `note`; both memories stay as they are."""
    require_aware(now)
    if holds not in (a, b, "both"):
        raise ValidationError("holds", f"expected {a!r}, {b!r} or 'both', got {holds!r}")
    if holds == "both" and not scope.strip():
        raise ValidationError("scope", "when both hold, say where each does")
    run_id = audit.new_run_id("conflict-resolve")

    def work(tx: Tx) -> dict[str, Any]:
        rows = tx.run("merge/conflict_get", a=a, b=b)
        if not rows:
            raise NotFound(f"no CONFLICTS_WITH link between {a!r} and {b!r}")
        if rows[0]["status"] != "open":
            raise Conflict(f"the conflict between {a!r} and {b!r} is {rows[0]['status']}, not open")
        out = tx.run("merge/conflict_resolve", a=a, b=b, holds=holds, scope=scope, note=note, by=by, now=now)
        audit.record(tx, "conflict_resolved", [a, b], run_id=run_id, at=now, by=by, holds=holds, scope=scope, note=note,
                     rule="a person settled a merge conflict; both memories kept")
        return out[0]

    return db.write(work)
