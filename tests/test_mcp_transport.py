"""Issue 59 (MCP transports): an open streamable-HTTP session survives an outage with the documented
`unavailable` tool error; the token and the size are checked before the body is read; arguments have the
HTTP API's bounds and no value is echoed whole; stdio answers JSON-RPC errors to lines it cannot use."""

from __future__ import annotations

import json
import socket
import time

import httpx
from test_mcp import HttpServer, _rpc

HELLO = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}}


def _open(srv, token: str) -> str:
    session = _rpc(srv, token, HELLO)["session"]
    httpx.post(srv.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, timeout=60,
               headers={"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream",
                        "Mcp-Session-Id": session})
    return session


def _call(srv, token: str, session: str, name: str, arguments: dict, id: int = 2) -> dict:
    return _rpc(srv, token, {"jsonrpc": "2.0", "id": id, "method": "tools/call",
                             "params": {"name": name, "arguments": arguments}}, session)


def test_an_open_session_answers_unavailable_during_an_outage_and_works_after(g, config, embedder):
    """Before: every call on a session opened before the outage answered HTTP 404 "session not found"
    (the SDK binds a session to its token's client id, which was the token's name when checked and
    "unchecked" while Neo4j was down); the SDK's own client hid it by opening new sessions."""
    from outage_helpers import BoltProxy

    port = int(config.neo4j.uri.rsplit(":", 1)[1])
    proxy = BoltProxy(port)
    cfg = config.model_copy(update={"neo4j": config.neo4j.model_copy(update={"uri": proxy.uri})})
    token, _ = g.create_token("agent-w", ["team"], "writer")
    try:
        with HttpServer(cfg, embedder) as srv:
            session = _open(srv, token)
            assert not _call(srv, token, session, "remember", {"content": "Deploys need a warm cache."})["result"]["isError"]
            proxy.down()
            for n in range(3):
                out = _call(srv, token, session, "recall", {"query": "warm cache"}, id=10 + n)
                assert out["status"] == 200, out
                text = out["result"]["content"][0]["text"]
                assert out["result"]["isError"] and text.startswith("Error executing tool recall: unavailable: "), text
            proxy.up()
            deadline = time.monotonic() + 60
            while True:
                out = _call(srv, token, session, "recall", {"query": "warm cache"}, id=20)
                assert out["status"] == 200, out
                if not out["result"]["isError"] or time.monotonic() > deadline:
                    break
                time.sleep(0.5)
            assert not out["result"]["isError"], out
            assert out["result"]["structuredContent"]["hits"][0]["memory"]["content"] == "Deploys need a warm cache."
    finally:
        proxy.close()
