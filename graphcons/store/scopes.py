"""Scopes: the (namespace, subject) pairs that hold live memories (a framework store's namespaces)."""

from __future__ import annotations

from graphcons.core.db import Database
from graphcons.core.errors import ValidationError
from graphcons.core.memory import LIVE_STATUSES, Memory


def list_(db: Database, *, namespaces: list[str] | None = None) -> list[tuple[str, str]]:
    rows = db.run("memory/scopes", live=LIVE_STATUSES, namespaces=namespaces)
    return [(r["namespace"], r["subject"]) for r in rows]


def under(db: Database, namespace: str, subject: str) -> list[str]:
    """The subjects of `namespace` holding a live memory that are `subject` or nested under it
    (`subject/...`), in order: a framework store's search prefix, without reading every memory."""
    return [r["subject"] for r in db.run("memory/scopes_under", namespace=namespace, subject=subject,
                                         live=LIVE_STATUSES)]


def members(db: Database, namespace: str, *, subject: str | None = None, limit: int = 100,
            offset: int = 0) -> list[Memory]:
    """One page of a scope's live memories, oldest first (ties by id)."""
    for name, value in (("limit", limit), ("offset", offset)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValidationError(name, "must be a non-negative integer")
    rows = db.run("memory/in_scope", namespace=namespace, subject=subject, live=LIVE_STATUSES,
                  limit=limit, offset=offset)
    return [Memory.from_node(r["memory"]) for r in rows]
