"""The bounds both servers put on what a caller sends (issue 59: the MCP server had none of the HTTP
API's): the size of a request body, and the length of the arguments both take (a query, a time, a
namespace, a subject, an id, a note), stated once here and read by service/models.py and mcp/server.py.

A request body must be, before any handler runs: at most [service] max_body_bytes (else 413; read up
to the limit, never further: a declared Content-Length over it is refused before reading) and, over
the HTTP API, UTF-8 (else 422 `body` with the reason and the byte, as `import` reports a line; FastAPI
would answer 400 with no field). The MCP server checks the bearer token before this reads anything."""

from __future__ import annotations

import json
from typing import Annotated, Any, Awaitable, Callable

from pydantic import Field

from graphcons.core.inputs import utf8_problem

MAX_QUERY = 10_000  # a retrieve's or a context's query
MAX_TIME = 64  # as_of, when, created_at, now: an ISO-8601 value or a window is far shorter
MAX_NAMESPACE = 100
MAX_NAME = 200  # a subject, an origin or source label, a session
MAX_ID = 128  # a memory's or a proposal's id
MAX_NOTE = 2000  # a reason, a note

QueryText = Annotated[str, Field(min_length=1, max_length=MAX_QUERY)]
AsOf = Annotated[str | None, Field(max_length=MAX_TIME, description="Answer with what was current then: a date "
                                   "(2023-05-27, its whole day) or an ISO-8601 date-time with a timezone.")]
When = Annotated[str | None, Field(max_length=MAX_TIME, description="Event time. Left out: the query's own time "
                                   "phrase (\"last month\", against as_of, else now) boosts, when the server's "
                                   "[retrieval] question_time is on; \"auto\": that phrase whatever the setting; "
                                   "\"off\": no window; or a window: 2023-06-01, 2023-06, 2023, or START/END of those.")]
Now = Annotated[str | None, Field(max_length=MAX_TIME, description="What the query's own time phrases (\"last "
                                  "month\", \"two weeks ago\") are counted from: a date or an ISO-8601 date-time "
                                  "with a timezone. Default: the server's clock; as_of, when given, comes first.")]

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


class BodyLimit:
    def __init__(self, app: Any, max_bytes: int, *, utf8: bool = True):
        self.app = app
        self.max_bytes = max_bytes
        self.utf8 = utf8  # the MCP server leaves bytes that are not UTF-8 to the SDK's JSON-RPC parse error

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None:
            if not declared.isdigit():
                return await _refuse(send, 400, "bad_input", "the Content-Length header is not a number")
            if int(declared) > self.max_bytes:
                return await _refuse(send, 413, "too_large", self._message())
        body, more = b"", True
        while more:  # buffer the body (at most max_bytes), then hand it on in one piece
            msg = await receive()
            if msg["type"] == "http.disconnect":
                return
            body += msg.get("body", b"")
            more = msg.get("more_body", False)
            if len(body) > self.max_bytes:
                return await _refuse(send, 413, "too_large", self._message())
        bad = utf8_problem(body) if self.utf8 else None
        if bad:
            return await _refuse(send, 422, "invalid_request", f"body: {bad}", "body")
        sent = False

        async def replay() -> dict[str, Any]:
            nonlocal sent
            if sent:
                return await receive()  # the app waits for a disconnect after the body
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    def _message(self) -> str:
        return f"the request body is larger than {self.max_bytes} bytes ([service] max_body_bytes)"


async def _refuse(send: Send, status: int, error: str, message: str, field: str | None = None) -> None:
    payload = json.dumps({"error": error, "message": message, "field": field}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]})
    await send({"type": "http.response.body", "body": payload})
