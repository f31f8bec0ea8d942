"""API tokens and principals (issue 16): who is calling, with which role, over which namespaces.

A token is a random secret shown once at creation; the store keeps only its SHA-256 (a
random 256-bit secret needs no slow hash) on an (:ApiToken) node with the token's name, role
and namespaces. The principal of a request is the token's name: it is the memory's source
for everything written through the API, so one caller counts as one source however many
labels it writes. Revoking keeps the node (status 'revoked'); nothing is deleted.

Roles are ordered: reader < writer < reviewer < admin; each may do what the ones below may.
A namespace grant of "*" covers every namespace.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graphcons.core import audit
from graphcons.core.db import Database, Tx
from graphcons.core.errors import NotFound, ValidationError

ROLES = ("reader", "writer", "reviewer", "admin")
ALL = "*"
PREFIX = "gct_"
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_NAMESPACE_RE = re.compile(r"^[A-Za-z0-9_.-]{1,100}$")  # the namespace shape of admission


@dataclass(frozen=True)
class Principal:
    """The authenticated caller of one request."""

    token_id: str
    name: str
    role: str
    namespaces: tuple[str, ...]

    @property
    def source(self) -> str:
        """The evidence source of what this caller writes: its identity, not a free string."""
        return f"api:{self.name}"

    def has(self, role: str) -> bool:
        return ROLES.index(self.role) >= ROLES.index(role)

    def sees(self, namespace: str) -> bool:
        return ALL in self.namespaces or namespace in self.namespaces

    @property
    def everywhere(self) -> bool:
        return ALL in self.namespaces


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def validate(name: Any, namespaces: Any, role: Any) -> tuple[str, list[str], str]:
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise ValidationError("name", "must be 1-64 letters, digits, _ . - (starting with a letter or digit)")
    if not isinstance(namespaces, (list, tuple)) or not namespaces:
        raise ValidationError("namespace", "give at least one namespace (or * for all)")
    for ns in namespaces:
        if not isinstance(ns, str) or not (ns == ALL or _NAMESPACE_RE.match(ns)):
            raise ValidationError("namespace", f"{ns!r} is not a namespace (letters, digits, _ . -) or *")
    if role not in ROLES:
        raise ValidationError("role", f"unknown value {role!r}; allowed: {', '.join(ROLES)}")
    return name, sorted(set(namespaces)), role


def create(db: Database, name: str, namespaces: list[str], role: str, *, by: str,
           now: datetime) -> tuple[str, dict[str, Any]]:
    """A new token: (the plain token, shown once; its stored record without the hash)."""
    name, namespaces, role = validate(name, namespaces, role)
    token = PREFIX + secrets.token_urlsafe(32)
    token_id = "t-" + uuid.uuid4().hex[:12]
    def work(tx: Tx) -> dict[str, Any]:
        row = tx.run("tokens/create", id=token_id, name=name, role=role, namespaces=namespaces,
                     hash=digest(token), now=now, by=by)[0]
        audit.record(tx, "token_create", [token_id], at=now, name=name, role=role, namespaces=namespaces, by=by)
        return row

    row = db.write(work)
    record = {k: v for k, v in row["token"].items() if k != "hash"}
    return token, record


def list_(db: Database) -> list[dict[str, Any]]:
    return [r["token"] for r in db.run("tokens/list")]


def revoke(db: Database, token_id: str, *, by: str, now: datetime, reason: str = "revoked") -> dict[str, Any]:
    """Revoke a token (revoking twice changes nothing); the node stays."""
    if not isinstance(token_id, str) or not token_id.strip():
        raise ValidationError("token_id", "must be a non-empty string")
    def work(tx: Tx) -> tuple[list[dict[str, Any]], bool]:
        rows = tx.run("tokens/revoke", id=token_id, now=now, by=by, reason=reason)
        if not rows:
            raise NotFound(f"no token with id {token_id!r}")
        changed = rows[0]["before"] != "revoked"
        if changed:
            audit.record(tx, "token_revoke", [token_id], at=now, by=by, reason=reason)
        return rows, changed

    rows, changed = db.write(work)
    return {**rows[0]["token"], "changed": changed}


def authenticate(db: Database, token: str) -> Principal | None:
    """The principal of an active token, or None (unknown, malformed or revoked)."""
    if not isinstance(token, str) or not token.startswith(PREFIX) or len(token) > 200:
        return None
    rows = db.run("tokens/find", hash=digest(token))
    if not rows:
        return None
    t = rows[0]["token"]
    return Principal(token_id=t["id"], name=t["name"], role=t["role"], namespaces=tuple(t["namespaces"]))
