"""Issue 59 (MCP transports): an open streamable-HTTP session survives an outage with the documented
`unavailable` tool error; the token and the size are checked before the body is read; arguments have the
HTTP API's bounds and no value is echoed whole; stdio answers JSON-RPC errors to lines it cannot use."""

from __future__ import annotations

import json
import re
import socket
import time

import httpx
from mcp_helpers import StdioPeer
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
    from outage_helpers import proxied

    proxy, cfg = proxied(config)
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


def _raw(port: int, head: bytes, body: bytes = b"", wait: float = 10.0) -> tuple[bytes, float]:
    """Send the request head (and a few bytes of body), then read the answer: the server must answer
    without waiting for the rest of a body it was told is large."""
    t0 = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as s:
        s.sendall(head + body)
        answer = b""
        try:
            # the head and the body may come in two packets: read until the declared length is in
            while b"\r\n\r\n" not in answer or len(answer.split(b"\r\n\r\n", 1)[1]) < _length(answer):
                chunk = s.recv(65536)
                if not chunk:
                    break
                answer += chunk
        except socket.timeout:
            pass
    return answer, time.monotonic() - t0


def _length(answer: bytes) -> int:
    found = re.search(rb"(?i)content-length:\s*(\d+)", answer.split(b"\r\n\r\n", 1)[0])
    return int(found.group(1)) if found else 0


def _head(srv, length: int, token: str | None = None) -> bytes:
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    return (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\n{auth}Content-Length: {length}\r\n\r\n").encode()


def test_the_token_and_the_size_are_checked_before_the_body_is_read(g, config, embedder):
    """Before: the server read any body whole before the 401 (200 MB: 6 s, +400 MB). A request that
    declares 200 MB is now answered at once, 401 without a token and 413 with one, reading none of it."""
    token, _ = g.create_token("agent-w", ["team"], "writer")
    with HttpServer(config, embedder) as srv:
        answer, took = _raw(srv.port, _head(srv, 200_000_000), b'{"jsonrpc": "2.0", ')
        assert answer.startswith(b"HTTP/1.1 401"), (answer[:200], took)
        answer, took = _raw(srv.port, _head(srv, 200_000_000, "gct_not-a-token"), b'{"jsonrpc": "2.0", ')
        assert answer.startswith(b"HTTP/1.1 401"), (answer[:200], took)
        answer, took = _raw(srv.port, _head(srv, 200_000_000, token), b'{"jsonrpc": "2.0", ')
        assert answer.startswith(b"HTTP/1.1 413") and b"max_body_bytes" in answer, (answer[:300], took)
        # a body over the limit sent without a length (chunked) is cut off at the limit too
        r = httpx.post(srv.url, content=iter([b"[" + b" " * 65536] * 40), timeout=60,
                       headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json",
                                "Accept": "application/json, text/event-stream"})
        assert r.status_code == 413, r.text[:200]


def test_arguments_have_the_http_bounds_and_no_value_is_echoed_whole(g, config, embedder, caplog):
    token, _ = g.create_token("agent-w", ["team"], "writer")
    long_id = "m-" + "x" * 120
    with HttpServer(config, embedder) as srv, caplog.at_level("INFO"):
        session = _open(srv, token)
        cases = [("recall", {"query": "q" * 20_000}, "bad_input (query): String should have at most 10000 characters"),
                 ("recall", {"query": "deploys", "as_of": "2023-" + "9" * 100_000},
                  "bad_input (as_of): String should have at most 64 characters"),
                 ("context", {"query": "deploys", "when": "w" * 100_000},
                  "bad_input (when): String should have at most 64 characters"),
                 ("remember", {"content": "A note.", "subject": "s" * 5000},
                  "bad_input (subject): String should have at most 200 characters")]
        for n, (name, arguments, expected) in enumerate(cases):
            out = _call(srv, token, session, name, arguments, id=30 + n)
            assert out["result"]["isError"], out
            assert out["result"]["content"][0]["text"] == f"Error executing tool {name}: {expected}"
        # a message that names many of the caller's values is cut, and says so
        out = _call(srv, token, session, "remember",
                    {"content": "Linked to many.", "links": [f"{long_id}{i:03d}" for i in range(50)]}, id=40)
        text = out["result"]["content"][0]["text"]
        assert out["result"]["isError"] and "unknown memory id(s)" in text, text
        assert len(text) < 700 and text.endswith("characters)") and "(cut: " in text, text
    assert "9" * 1000 not in caplog.text and "w" * 1000 not in caplog.text
    assert g.stats()["memories"] == 0


def test_stdio_answers_lines_it_cannot_use_with_a_json_rpc_error(neo4j_settings, tmp_path):
    """Before: a truncated line, a batch array, a message nested too deep got no answer (the client
    waited). Now -32700 (not JSON) or -32600 (JSON, not one JSON-RPC message), `id: null` (or the id an
    object carried); a blank line is no message and gets none; the session goes on."""
    with StdioPeer(neo4j_settings, tmp_path) as peer:
        peer.send(json.dumps(HELLO))
        assert json.loads(peer.answer())["id"] == 1
        peer.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        answers = []
        for line in ['{"jsonrpc": "2.0", "id": 2, "method": "tools/li',
                     json.dumps([{"jsonrpc": "2.0", "id": 3, "method": "ping"}]),
                     "[" * 5000 + "]" * 5000,
                     "",
                     json.dumps({"jsonrpc": "2.0", "id": 4, "method": 7})]:
            peer.send(line)
            answers.append(json.loads(peer.answer(30)) if line else None)
        peer.send(json.dumps({"jsonrpc": "2.0", "id": 5, "method": "ping"}))
        after = json.loads(peer.answer(30))
    codes = [(a["id"], a["error"]["code"]) if a else None for a in answers]
    assert codes == [(None, -32700), (None, -32600), (None, -32700), None, (4, -32600)], answers
    assert after == {"jsonrpc": "2.0", "id": 5, "result": {}}, after
