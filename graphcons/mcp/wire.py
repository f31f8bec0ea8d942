"""A tool call whose JSON carries a lone surrogate ("\\ud800": valid JSON, not valid Unicode).

The SDK parses a message strictly and refuses it whole: over streamable HTTP JSON-RPC -32700 "unexpected
end of hex escape" with no id and no field, over stdio no answer at all (the client waits). The HTTP API
answers such a body 400 naming the field, so the MCP server does the same: a `tools/call` message that
strict parsing refuses is read with Python's lenient parser, MARKER takes the place of each argument text
the input policy refuses, and the SDK gets the message re-encoded (`LenientBody` over streamable HTTP,
`Reread` over stdio); the tool then answers `bad_input (field): is not valid Unicode (a lone surrogate)`
(server.GraphconsTool.run). Any other message passes unchanged and gets the SDK's answer; over stdio a
line that is still no usable message gets a JSON-RPC error (`refusal`: -32700 or -32600, `id: null`).
"""

from __future__ import annotations

import json
from typing import Any

import pydantic_core
from mcp import types
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from graphcons.core.inputs import text_problem

#: What a refused text becomes on the way in: a NUL keeps it from ever being a text the tools accept.
MARKER = "\x00graphcons: a lone surrogate\x00"


def _marked(value: Any) -> Any:
    if isinstance(value, str):
        return MARKER if text_problem(value) else value
    if isinstance(value, list):
        return [_marked(v) for v in value]
    if isinstance(value, dict):
        return {k: _marked(v) for k, v in value.items()}
    return value


def marked(body: bytes) -> bytes | None:
    """`body` re-encoded with its tool arguments' bad texts marked; None when there is nothing to do."""
    try:
        pydantic_core.from_json(body)
        return None  # the SDK reads it as it is
    except ValueError:
        pass
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return None
    params = message.get("params") if isinstance(message, dict) and message.get("method") == "tools/call" else None
    if not isinstance(params, dict) or not isinstance(params.get("arguments"), dict):
        return None
    params["arguments"] = _marked(params["arguments"])
    return json.dumps(message).encode()


class LenientBody:
    """ASGI middleware in front of the SDK's streamable-HTTP app (authentication stays inside it)."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        chunks, more = [], True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message["type"] == "http.request" and message.get("more_body", False)
        body = b"".join(chunks)
        body = marked(body) or body
        sent = False

        async def replay() -> dict[str, Any]:
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


def reread(item: SessionMessage | Exception) -> SessionMessage | Exception:
    """A stdio line the SDK could not parse (it hands on the error, whose input is the line), marked."""
    if isinstance(item, ValidationError):
        err = (item.errors() or [{}])[0]
        line = err.get("input")
        body = marked(line.encode()) if err.get("type") == "json_invalid" and isinstance(line, str) else None
        if body is not None:
            try:
                return SessionMessage(types.jsonrpc_message_adapter.validate_json(body, by_name=False))
            except ValidationError:
                pass
    return item


PARSE_ERROR, INVALID_REQUEST = -32700, -32600


def refusal(item: Exception) -> SessionMessage | None:
    """The JSON-RPC error a stdio line the SDK could not use gets, with `id: null` unless the line is an
    object carrying an id (issue 59: a truncated line, a batch array or a message nested too deep got no
    answer and the client waited). A blank line is no message and gets none (newline-delimited JSON)."""
    errors = item.errors() if isinstance(item, ValidationError) else [{"type": "json_invalid"}]
    given = (errors or [{}])[0].get("input")  # the line when it is no JSON, else the parsed value
    if isinstance(given, str) and not given.strip():
        return None
    parsed = not any(err.get("type") == "json_invalid" for err in errors)
    whole = next((err["input"] for err in errors if isinstance(err.get("input"), dict)), None)  # a 'missing' error's
    msg_id = whole.get("id") if whole is not None and type(whole.get("id")) in (int, str) else None
    code, text = (INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message (one object per line; "
                  "batches are not supported)") if parsed else (PARSE_ERROR, "Parse error: the line is not JSON")
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=msg_id, error=types.ErrorData(code=code, message=text)))


class Reread:
    """The SDK's stdio read stream, each item passed through `reread`; a line still unusable is answered
    on `write` with a JSON-RPC error (`refusal`) and not handed on."""

    def __init__(self, inner: Any, write: Any = None):
        self.inner, self.write = inner, write

    @property
    def last_context(self) -> Any:  # the sender's context, which the SDK's dispatcher reads
        return getattr(self.inner, "last_context", None)

    async def _next(self, item: SessionMessage | Exception) -> SessionMessage | Exception | None:
        item = reread(item)
        if not isinstance(item, Exception) or self.write is None:
            return item
        answer = refusal(item)
        if answer is not None:
            await self.write.send(answer)
        return None

    async def receive(self) -> SessionMessage | Exception:
        while (item := await self._next(await self.inner.receive())) is None:
            pass
        return item

    async def aclose(self) -> None:
        await self.inner.aclose()

    def __aiter__(self) -> "Reread":
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        while (item := await self._next(await self.inner.__anext__())) is None:
            pass
        return item

    async def __aenter__(self) -> "Reread":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()
