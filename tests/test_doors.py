"""Issue 63 item 1 (and 5): what recall knows reaches every door. A value an update superseded, an
excerpt of a long turn, `as_of` and `when`: the same over the Python API, the HTTP API, MCP, the
LangGraph store and the LangChain retriever; the update and card passes over HTTP and MCP; logs
without user content. Real Neo4j, a real uvicorn server, the MCP SDK's own client."""

from __future__ import annotations

from datetime import timedelta

import pytest
from service_helpers import Server
from test_mcp import Session, run
from test_updates import NEW, NOW, OLD, T0

from graphcons.access.holder import Store
from graphcons.core.config import Config, ServiceConfig
from graphcons.mcp.server import build_server

Q = "How many Korean restaurants have I tried?"
LONG = ("We spent the whole weekend planning the trip to Seoul with my cousin and her two kids. " * 6
        + "Before that, my cousin asked how many Korean restaurants I have tried in my city. "
        + "The flights were booked on Sunday evening after a long call with the travel agent. " * 5)


@pytest.fixture(scope="module")
def server(neo4j_settings, embedder):
    with Server(Config(neo4j=neo4j_settings, service=ServiceConfig()), embedder) as srv:
        yield srv


def updated(g) -> tuple[str, str]:
    """OLD and NEW (test_updates) in namespace chat, NEW superseding OLD through an applied update
    proposal (the update pass, then a reviewer's approval), and a long turn that shares one sentence
    with the question. Returns (newer, older)."""
    new, old = g.add(NEW).id, g.add(OLD).id
    g.add({"content": LONG, "subject": "user", "namespace": "chat", "source": "s3:0",
           "created_at": T0 + timedelta(days=50)})
    g.updates(dry_run=False, now=NOW)
    (p,) = g.proposals(kind="update")
    g.approve(p["id"], by="ana", now=NOW)
    return new, old


def mcp(config, embedder, body, token: str | None = None):
    """`body(session)` against build_server over the SDK's in-memory client; with `token`, the
    caller is that API token (as GRAPHCONS_MCP_TOKEN narrows a stdio server)."""
    store = Store(config, embedder)
    try:
        return run(build_server(store, env={"GRAPHCONS_MCP_TOKEN": token} if token else {}), body)
    finally:
        store.close()


def test_http_and_mcp_context_lines_equal_pythons_with_superseded_by_until_and_excerpt(g, server, config, embedder):
    """Before: HTTP lines were {text, ids, kind, date} only (the model dropped `superseded_by`, `until` and
    `excerpt`), so an HTTP agent could not tell an earlier value or an excerpt from a whole memory."""
    new, old = updated(g)
    ours = g.context(Q, 80, namespace="chat", record=False).to_dict()
    earlier = next(line for line in ours["lines"] if line["ids"] == [old])
    assert (earlier["superseded_by"], earlier["until"][:10]) == (new, "2026-10-11")
    assert any(line.get("excerpt") for line in ours["lines"])  # the long turn, by its one shared sentence

    reader = g.create_token("agent-r", ["chat"], "reader")[0]  # records nothing: every door sees the same store
    r = server.client(reader).post("/v1/context", json={"query": Q, "budget_words": 80, "namespace": "chat"})
    assert r.status_code == 200, r.text
    assert r.json() == ours

    async def body(s: Session):
        return await s.ok("context", query=Q, budget_words=80, namespace="chat")

    assert mcp(config, embedder, body, reader) == ours
    schema = server.app.openapi()["components"]["schemas"]["ContextLine"]["properties"]
    assert {"text", "ids", "kind", "date", "excerpt", "superseded_by", "until"} <= set(schema)
