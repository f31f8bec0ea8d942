"""Read your own writes across API processes (issue 33): the Graphcons-Bookmark header.

Within one API process every request already reads every earlier write (core/db.py keeps one
bookmark manager per process). Behind a load balancer a caller's next request may reach another
process, or, on a cluster, a secondary that has not caught up: a response to a request that wrote
carries `Graphcons-Bookmark`, and a request that sends it back starts every transaction after
that write, wherever it runs. The value is opaque: comma-separated Neo4j bookmarks.
"""

from __future__ import annotations

import re
from typing import Any

from graphcons.core.db import call_scope
from graphcons.access.limits import Receive, Send, _refuse

HEADER = b"graphcons-bookmark"
VALUE = re.compile(r"^[A-Za-z0-9+/=:_.-]{1,512}$")
MAX_VALUES = 16


class Bookmarks:
    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        raw = dict(scope.get("headers") or []).get(HEADER, b"").decode("latin-1").strip()
        given = tuple(v.strip() for v in raw.split(",")) if raw else ()
        if len(given) > MAX_VALUES or not all(VALUE.match(v) for v in given):
            return await _refuse(send, 400, "bad_input", "the Graphcons-Bookmark header is not one a response gave")
        with call_scope(given) as call:

            async def send_bookmark(message: dict[str, Any]) -> None:
                if message["type"] == "http.response.start" and call.left:
                    message = {**message, "headers": [*message.get("headers", []),
                                                      (HEADER, ",".join(call.left).encode("latin-1"))]}
                await send(message)

            await self.app(scope, receive, send_bookmark)
