"""No API token in either server's log (issue 50 item 3): `graphcons serve` and `graphcons mcp
--transport http` run as a user starts them, a caller plants its token in the query, the path (plain and
percent-encoded) and the headers, and the token is nowhere in what the process logged (uvicorn's access
and error logs, graphcons' and the MCP SDK's loggers). Before: the MCP server logged
`POST /mcp?token=gct_... HTTP/1.1` and `/mcp/gct_...`, and `serve` logged `/v1/memories/gct%5F...`."""

from __future__ import annotations

import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
from service_helpers import free_port

MCP_ACCEPT = "application/json, text/event-stream"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "probe", "version": "1"}}}


@pytest.fixture
def cli(neo4j_settings, tmp_path):
    from conftest import graphcons_cli

    return graphcons_cli(neo4j_settings, tmp_path, timeout=180)


def _start(stack: ExitStack, cli, cwd: Path, name: str, *args: str) -> tuple[str, Path]:
    """`python -m graphcons ARGS --port P`, its output in a file; the server's base URL and the file."""
    port, log = free_port(), cwd / f"{name}.log"
    sink = stack.enter_context(open(log, "wb"))
    proc = subprocess.Popen([sys.executable, "-m", "graphcons", *args, "--port", str(port)], env=cli.env, cwd=cwd,
                            stdout=sink, stderr=subprocess.STDOUT)

    def stop() -> None:
        proc.terminate()
        proc.wait(timeout=60)

    stack.callback(stop)
    return f"http://127.0.0.1:{port}", log


def _wait(url: str, log: Path) -> None:
    deadline = time.monotonic() + 120
    while True:
        try:
            httpx.get(url, timeout=5)
            return
        except httpx.TransportError:
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.3)


def test_no_token_reaches_either_servers_log(g, cli, tmp_path):
    token, _ = g.create_token("logged", ["team"], "writer")
    rest = token[len("gct_"):]
    auth = {"Authorization": f"Bearer {token}", "X-Api-Key": token, "Cookie": f"token={token}"}
    with ExitStack() as stack:
        api, api_log = _start(stack, cli, tmp_path, "serve", "serve", "--log-level", "debug")
        mcp, mcp_log = _start(stack, cli, tmp_path, "mcp", "mcp", "--transport", "http")
        _wait(f"{api}/healthz", api_log)
        _wait(f"{mcp}/mcp", mcp_log)

        assert httpx.get(f"{api}/v1/search", params={"text": "x", "k": 3, "token": token}, headers=auth).status_code == 200
        assert httpx.get(f"{api}/v1/memories/{token}", headers=auth).status_code == 404
        assert httpx.get(f"{api}/v1/memories/gct%5F{rest}", headers=auth).status_code == 404
        assert httpx.get(f"{api}/v1/memories/gct%255F{rest}", headers=auth).status_code == 404
        assert httpx.get(f"{api}/v1/proposals", params={"access_token": token}).status_code == 401

        mcp_headers = {**auth, "Accept": MCP_ACCEPT}
        assert httpx.post(f"{mcp}/mcp", params={"token": token}, json=INITIALIZE, headers=mcp_headers).status_code == 200
        assert httpx.post(f"{mcp}/mcp/{token}", json=INITIALIZE, headers=mcp_headers).status_code == 404
        assert httpx.post(f"{mcp}/mcp/gct%5F{rest}", json=INITIALIZE, headers=mcp_headers).status_code == 404
        assert httpx.post(f"{mcp}/mcp", params={"token": token}, json=INITIALIZE,
                          headers={"Accept": MCP_ACCEPT, "X-Api-Key": token}).status_code == 401
        time.sleep(1)  # the access log line is written after the response
    served, mcp_text = api_log.read_text(), mcp_log.read_text()
    # a path segment that is not a route's own word is masked whole (issue 63: store keys are user content)
    assert "GET /v1/memories/*** HTTP/1.1" in served and "/v1/search?text=***&k=3&token=***" in served
    assert "POST /mcp?token=*** HTTP/1.1" in mcp_text and "POST /mcp/*** HTTP/1.1" in mcp_text
    for text in (served, mcp_text):
        assert rest not in text, text
