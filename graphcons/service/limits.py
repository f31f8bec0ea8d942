"""What a request body must be before any handler runs: at most [service] max_body_bytes (else 413;
read up to the limit, never further) and UTF-8 (else 422 `body` with the reason and the byte, as
`import` reports a line; FastAPI would answer 400 with no field)."""

from __future__ import annotations

import json
from typing import Any, Awaitable, Callable

from graphcons.core.inputs import utf8_problem

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


class BodyLimit:
    def __init__(self, app: Any, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

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
        bad = utf8_problem(body)
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
