"""What every route shares: the store (opened on first use), the caller, and its scope.

The caller is the principal of its bearer token (store/tokens.py). A token sees only its
namespaces: another namespace's memory or proposal answers exactly as a missing one does
(404 with the same message), so a caller cannot learn what exists elsewhere; writing into a
namespace the token lacks, or using a role it lacks, is 403.
"""

from __future__ import annotations

import threading
from typing import Any

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.exceptions import HTTPException

from graphcons.api import Graphcons
from graphcons.core.config import Config
from graphcons.core.embedders import Embedder
from graphcons.core.errors import NotFound, ValidationError
from graphcons.core.memory import Memory
from graphcons.service.errors import Forbidden
from graphcons.store.tokens import Principal

bearer = HTTPBearer(auto_error=False, description="An API token from `graphcons tokens create`.")


class Store:
    """One Graphcons for the whole server, opened on the first request that needs it (so the
    server starts, and answers 503, while Neo4j is down) and reused by every request."""

    def __init__(self, config: Config, embedder: Embedder | None = None):
        self.config = config
        self._embedder = embedder
        self._g: Graphcons | None = None
        self._lock = threading.Lock()

    def get(self) -> Graphcons:
        with self._lock:
            if self._g is None:
                g = Graphcons(self.config, embedder=self._embedder)
                try:
                    g.embedder  # checks the store's embedder (initialises a fresh one) and loads it once
                except Exception:
                    g.close()
                    raise
                self._g = g
            return self._g

    def close(self) -> None:
        with self._lock:
            if self._g is not None:
                self._g.close()
                self._g = None


def store(request: Request) -> Graphcons:
    return request.app.state.store.get()


def caller(request: Request, g: Graphcons = Depends(store),
           credentials: HTTPAuthorizationCredentials | None = Depends(bearer)) -> Principal:
    if credentials is None:
        raise HTTPException(401, "a bearer token is required (Authorization: Bearer <token>)",
                            headers={"WWW-Authenticate": "Bearer"})
    principal = g.authenticate(credentials.credentials)
    if principal is None:
        raise HTTPException(401, "unknown or revoked token", headers={"WWW-Authenticate": "Bearer"})
    # one rule on every route, whether or not it reads the parameter: a namespace the token lacks is 403
    for namespace in request.query_params.getlist("namespace"):
        if not principal.sees(namespace):
            raise Forbidden(f"the token {principal.name!r} may not use namespace {namespace!r}", "namespace")
    return principal


def require(p: Principal, minimum: str) -> Principal:
    """The caller, if its role is at least `minimum` (else 403); the MCP server checks the same way."""
    if not p.has(minimum):
        raise Forbidden(f"this needs the {minimum} role; the token {p.name!r} is a {p.role}")
    return p


def role(minimum: str):
    """A dependency: the caller, if its role is at least `minimum`."""

    def check(p: Principal = Depends(caller)) -> Principal:
        return require(p, minimum)

    return check


def everywhere(p: Principal) -> None:
    """Store-wide operations (jobs, health, stats) need a token over every namespace ("*")."""
    if not p.everywhere:
        raise Forbidden("this spans every namespace; it needs a token with namespace *")


def write_namespace(p: Principal, namespace: str | None) -> str:
    """The namespace a write goes to: the one given, or the token's only one."""
    if namespace is None:
        if p.everywhere:
            return "default"
        if len(p.namespaces) == 1:
            return p.namespaces[0]
        raise ValidationError("namespace", f"required: this token covers {', '.join(p.namespaces)}")
    if not p.sees(namespace):
        raise Forbidden(f"the token {p.name!r} may not use namespace {namespace!r}", "namespace")
    return namespace


def read_namespace(p: Principal, namespace: str | None) -> str | None:
    """The namespace a read covers: the one given, the token's only one, or all (None) for *."""
    if namespace is None and p.everywhere:
        return None
    return write_namespace(p, namespace)


def own_memory(g: Graphcons, p: Principal, memory_id: str) -> Memory:
    """The memory, if the caller may see it; another namespace's memory is 'not found'."""
    return g.get(memory_id, namespaces=None if p.everywhere else list(p.namespaces))


def unseen(g: Graphcons, p: Principal, ids: list[str]) -> list[str]:
    """The ids among `ids` that exist in a namespace the caller does not see."""
    out = []
    for mem_id in dict.fromkeys(ids):
        try:
            if not p.sees(g.get(mem_id).namespace):
                out.append(mem_id)
        except NotFound:
            pass
    return out


def own_proposal(g: Graphcons, p: Principal, proposal_id: str) -> dict[str, Any]:
    prop = g.proposal(proposal_id)
    if not p.sees(prop.get("namespace") or "default"):
        raise NotFound(f"no proposal with id {proposal_id!r}")
    return prop
