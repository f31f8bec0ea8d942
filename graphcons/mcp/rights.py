"""Who calls an MCP tool: the HTTP API's tokens, roles and namespaces (graphcons/access/rights.py).

Over stdio the server is a process of the local user, who can run any CLI command, so it acts
with the local user's rights (every namespace, every role) unless $GRAPHCONS_MCP_TOKEN names an
API token, which then narrows them to that token's role and namespaces. Over streamable HTTP
every request carries a bearer token (`graphcons tokens create`), checked by the SDK's bearer
middleware through `StoreTokenVerifier`; the token's principal rides in the access token's claims.

While Neo4j is down the tokens cannot be read. The bearer check then admits a token of graphcons'
shape provisionally (the SDK would otherwise answer 500), and `request_principal` checks it with the
store before any tool or resource runs: nothing is read or written without a checked token, and the
caller gets the tool error `unavailable: ...` instead of a broken session; once Neo4j is back the
same session works. The SDK binds a session to the `client_id` of the token that opened it and answers
404 "session not found" to any other, so `client_id` is a function of the token alone (`holder_of`),
the same whether the store could check it or not (issue 59: it was the token's name when checked and
"unchecked" during an outage, and every call of an open session answered 404 until Neo4j was back).
"""

from __future__ import annotations

import os
from typing import Any

import anyio.to_thread
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken

from graphcons.access.holder import Store
from graphcons.access.rights import Forbidden
from graphcons.api import Graphcons
from graphcons.core.errors import ServerUnavailable, ValidationError
from graphcons.store.tokens import ALL, PREFIX, Principal, digest

ENV_TOKEN = "GRAPHCONS_MCP_TOKEN"
LOCAL = Principal(token_id="local", name="local", role="admin", namespaces=(ALL,))
LOCAL_SOURCE = "mcp"  # the evidence source of a local memory that names none


def local_principal(g: Graphcons, env: dict[str, str] | None = None) -> Principal:
    """The local user, or the principal of $GRAPHCONS_MCP_TOKEN (an unknown token is refused)."""
    token = (os.environ if env is None else env).get(ENV_TOKEN)
    if not token:
        return LOCAL
    principal = g.authenticate(token)
    if principal is None:
        raise ValidationError(ENV_TOKEN, "unknown or revoked API token")
    return principal


def holder_of(token: str) -> str:
    """The SDK's client id of a bearer token: a prefix of its stored hash, never the token itself."""
    return "token-" + digest(token)[:16]


class StoreTokenVerifier:
    """The SDK's TokenVerifier over graphcons' API tokens (store/tokens.py)."""

    def __init__(self, store: Store):
        self.store = store

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            principal = await anyio.to_thread.run_sync(lambda: self.store.get().authenticate(token))
        except ServerUnavailable:  # checked again, with the store, before anything runs (request_principal)
            return AccessToken(token=token, client_id=holder_of(token), scopes=[],
                               claims={"unchecked": True}) if token.startswith(PREFIX) else None
        if principal is None:
            return None
        return AccessToken(token=token, client_id=holder_of(token), scopes=[principal.role],
                           claims={"token_id": principal.token_id, "name": principal.name, "role": principal.role,
                                   "namespaces": list(principal.namespaces)})


def request_principal(store: Store) -> Principal:
    """The principal of the current streamable-HTTP request's bearer token."""
    token = get_access_token()
    claims: dict[str, Any] = (token.claims or {}) if token else {}
    if not claims:  # the bearer middleware lets no request through without one
        raise Forbidden("a bearer token is required")
    if claims.get("unchecked"):  # admitted while Neo4j was down: check it now (raises while still down)
        principal = store.get().authenticate(token.token)
        if principal is None:
            raise Forbidden("unknown or revoked API token")
        return principal
    return Principal(token_id=claims["token_id"], name=claims["name"], role=claims["role"],
                     namespaces=tuple(claims["namespaces"]))
