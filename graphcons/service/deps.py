"""What every route shares: the store, the caller (the principal of its bearer token,
store/tokens.py) and its rights. The rights checks live in graphcons/access/rights.py, shared with
the MCP server; they are imported here for the routes. A token sees only its namespaces (another
namespace's memory or proposal answers 404 exactly as a missing one does); writing into a namespace
the token lacks, or using a role it lacks, is 403.
"""

from __future__ import annotations

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.exceptions import HTTPException

from graphcons.access.holder import Store
from graphcons.access.rights import (
    Forbidden,
    everywhere,
    own_memory,
    own_proposal,
    qualified,
    read_namespace,
    require,
    unseen,
    write_namespace,
)
from graphcons.api import Graphcons
from graphcons.store.tokens import Principal

__all__ = ["Store", "bearer", "caller", "everywhere", "own_memory", "own_proposal", "qualified", "read_namespace",
           "require", "role", "store", "unseen", "write_namespace"]

bearer = HTTPBearer(auto_error=False, description="An API token from `graphcons tokens create`.")


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


def role(minimum: str):
    """A dependency: the caller, if its role is at least `minimum`."""

    def check(p: Principal = Depends(caller)) -> Principal:
        return require(p, minimum)

    return check
