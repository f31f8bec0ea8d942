"""A missing or bad API token over streamable HTTP says so to the client (issue 63 item 5).

The SDK's bearer middleware answers 401 with an OAuth error body (`{"error": "invalid_token", ...}`)
and the SDK's client, reading a non-2xx answer, shows only a JSON-RPC error found in its body: anything
else becomes the opaque `Server returned an error response`, with no word of 401 or the token. So the
401 keeps its status and its `WWW-Authenticate` header (where RFC 6750 puts the OAuth error) and its body
becomes a JSON-RPC error saying what is wrong: no bearer token, or one the store does not know (unknown
or revoked). The OAuth fields stay in the error's `data`. What the SDK does not allow: the client raises
its `MCPError` with this message and code, but not the HTTP status itself (it is in the message).
"""

from __future__ import annotations

import json
from typing import Any

CODE = -32001  # JSON-RPC's server-defined range: the request was not authenticated
NO_TOKEN = ("401 Unauthorized: no API token. Send the header Authorization: Bearer <token> "
            "(graphcons tokens create)")
BAD_TOKEN = "401 Unauthorized: the API token is unknown or revoked (graphcons tokens list)"


def _bearer(scope: dict[str, Any]) -> bool:
    return any(k == b"authorization" and v[:7].lower() == b"bearer " and v[7:].strip()
               for k, v in scope.get("headers") or [])


def body(has_token: bool) -> bytes:
    message = BAD_TOKEN if has_token else NO_TOKEN
    return json.dumps({"jsonrpc": "2.0", "id": None, "error": {
        "code": CODE, "message": message,
        "data": {"status": 401, "error": "invalid_token", "error_description": message}}}).encode()


class SaysWhy:
    """ASGI: a 401 answer of the app below gets a JSON-RPC error body naming what is wrong with the token."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        replaced: list[bool] = []

        async def sending(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start" and message.get("status") == 401:
                replaced.append(True)
                text = body(_bearer(scope))
                headers = [(k, v) for k, v in message.get("headers", []) if k not in (b"content-length", b"content-type")]
                await send({**message, "headers": [*headers, (b"content-type", b"application/json"),
                                                   (b"content-length", str(len(text)).encode())]})
                await send({"type": "http.response.body", "body": text, "more_body": False})
                return
            if replaced and message["type"] == "http.response.body":
                return  # the OAuth body: its fields are in the error's data
            await send(message)

        await self.app(scope, receive, sending)
