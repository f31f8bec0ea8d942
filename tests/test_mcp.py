"""`graphcons mcp` (issue 32) through the official SDK's own client against the real Neo4j: over
stdio (the server is a `python -m graphcons mcp` subprocess, as a desktop assistant starts it)
and over streamable HTTP with API tokens (the HTTP API's roles and namespaces)."""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import sys
import threading
import time
from pathlib import Path

import httpx
import httpx2
import pytest
import uvicorn
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from service_helpers import free_port
from synthesis_helpers import NOW, add_incidents

from graphcons.access.holder import Store
from graphcons.api import Graphcons
from graphcons.core.config import Config, RetrievalConfig
from graphcons.mcp.server import build_server

TOOLS = {"remember", "recall", "context", "explain", "profile", "reflect", "proposals", "feedback", "run_job"}


class Session:
    """One MCP client session; `call` returns (structured result, None) or (None, error text)."""

    def __init__(self, client: Client):
        self.client = client

    async def call(self, name: str, **arguments):
        r = await self.client.call_tool(name, arguments)
        text = "".join(getattr(c, "text", "") for c in r.content)
        if r.is_error:  # the SDK prefixes the tool's own message
            prefix = f"Error executing tool {name}: "
            assert text.startswith(prefix), text
            return None, text[len(prefix):]
        return r.structured_content, None

    async def ok(self, name: str, **arguments):
        out, err = await self.call(name, **arguments)
        assert err is None, err
        return out

    async def read(self, uri: str):
        r = await self.client.read_resource(uri)
        return json.loads(r.contents[0].text)


def run(params_or_transport, body):
    async def main():
        async with Client(params_or_transport, read_timeout_seconds=300) as client:
            return await body(Session(client))
    return asyncio.run(main())


@pytest.fixture
def stdio(g, neo4j_settings, tmp_path):
    def params(**extra_env):
        env = dict(os.environ, NEO4J_URI=neo4j_settings.uri, NEO4J_USER=neo4j_settings.user,
                   NEO4J_PASSWORD=neo4j_settings.resolved_password(), **extra_env)
        env.pop("GRAPHCONS_CONFIG", None)
        # this checkout's graphcons, not the editable install's (a worktree's server is the one under test)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).resolve().parent.parent),
                                                          env.get("PYTHONPATH")]))
        return StdioServerParameters(command=sys.executable, args=["-m", "graphcons", "mcp"], env=env, cwd=str(tmp_path))
    return params


def test_stdio_lists_the_tools_and_remember_recall_explain_round_trip(g, stdio):
    async def body(s: Session):
        tools = {t.name: t for t in (await s.client.list_tools()).tools}
        assert set(tools) == TOOLS
        remember = tools["remember"].input_schema
        assert {"content", "subject", "namespace", "source", "kind", "links"} <= set(remember["properties"])
        assert remember["required"] == ["content"]
        assert set(tools["recall"].input_schema["properties"]) == {"query", "k", "namespace", "subject", "as_of", "when",
                                                                     "when_mode", "now"}
        assert set(tools["explain"].input_schema["properties"]) == {"id"}
        assert set(tools["profile"].input_schema["properties"]) == {"subject", "namespace"}
        assert all(len(t.description) > 80 for t in tools.values())  # written for a model to choose by
        templates = {t.uri_template for t in (await s.client.list_resource_templates()).resource_templates}
        assert templates == {"graphcons://memories/{memory_id}", "graphcons://insights/{insight_id}"}
        assert set(tools["context"].input_schema["properties"]) == {"query", "budget_words", "namespace", "subject",
                                                                      "as_of", "when", "when_mode", "budget_tokens",
                                                                      "now"}
        assert "created_at" in remember["properties"]
        a = await s.ok("remember", content="Deploy 4.2 caused 503s on checkout for 12 minutes.", subject="checkout",
                       source="pagerduty", kind="incident", created_at="2026-11-02T10:00:00+00:00")
        b = await s.ok("remember", content="Checkout served 503 after deploy 4.3; the cache was cold.",
                       subject="checkout", links=[a["id"]])
        assert a["created"] and a["namespace"] == "default" and b["linked"] == 1
        hits = (await s.ok("recall", query="503 errors after a deploy", k=3))["hits"]
        assert {h["memory"]["id"] for h in hits} == {a["id"], b["id"]}
        ctx = await s.ok("context", query="503 errors after a deploy", budget_words=40)
        assert ctx["words"] <= 40 and a["id"] in ctx["ids"] and "2 November 2026:\n" in ctx["text"]
        small = await s.ok("context", query="503 errors after a deploy", budget_tokens=30)  # issue 59: tokens too
        assert small["budget_words"] is None and small["tokens"] <= 30 < ctx["tokens"]
        why = await s.ok("explain", id=a["id"])
        assert why["id"] == a["id"] and why["sources"][0]["sources"] == ["pagerduty"]
        stored = await s.read(f"graphcons://memories/{a['id']}")
        assert stored["subject"] == "checkout" and stored["source"] == "pagerduty"
        _, err = await s.call("explain", id="m-missing")
        assert err.startswith("not_found")
        _, err = await s.call("remember", content="x", kind="rumour")
        assert err.startswith("bad_input (kind)")
        return a["id"]

    mem_id = run(stdio(), body)
    assert g.get(mem_id).source == "pagerduty"  # written to the real store
    assert g.audit_log(op="add", target=mem_id)


def test_stdio_insights_review_reflection_and_feedback(g, stdio):
    cluster = add_incidents(g)
    iid = g.approve(g.synthesize(cluster, now=NOW).proposal_id, by="ana", now=NOW).insight_id
    late = add_incidents(g, rows=[(f"late-{i}", f"Payments timed out after deploy 5.{i}; the pool was cold.",
                                   f"oncall-{i}", "2026-11-24") for i in range(4)], subject="payments")
    pending = g.synthesize(late, now=NOW).proposal_id
    for i in range(10):
        g.add({"id": f"ana-{i}", "content": f"Ana prefers short answers about invoice {i}.", "subject": "user-ana",
               "kind": "preference", "source": "chat"})

    async def body(s: Session):
        hits = (await s.ok("recall", query="checkout 503 after deploy", k=8, subject="checkout"))["hits"]
        top = next(h for h in hits if h["memory"]["kind"] == "insight")
        assert top["memory"]["id"] == iid and top["memory"]["epistemic_status"] == "hypothesis"
        assert set(top["cites"]) <= set(cluster.member_ids) and top["cites"]
        assert sorted(top["source_episodes"]) == sorted(cluster.member_ids)
        assert all(m["memory"]["id"] in cluster.member_ids for m in top["members"])
        insight = await s.read(f"graphcons://insights/{iid}")
        assert insight["insight"]["kind"] == "insight"
        assert sorted(x["id"] for x in insight["provenance"]["sources"]) == sorted(cluster.member_ids)
        listed = (await s.ok("proposals"))["proposals"]
        assert [p["id"] for p in listed] == [pending]
        _, err = await s.call("proposals", action="reject", proposal_id=pending)
        assert err.startswith("bad_input (reason)")
        decision = (await s.ok("proposals", action="approve", proposal_id=pending))["decision"]
        assert decision["status"] == "applied"
        rated = await s.ok("feedback", id=iid, verdict="useful")
        assert rated["useful"] == 1
        assert rated["effective_weight"] > rated["effective_weight_before"]  # issue 41: 'useful' never lowers it
        refl = await s.ok("reflect", subject="user-ana")
        assert refl["status"] == "proposed" and refl["memories_reviewed"] == 10
        _, err = await s.call("profile", subject="user-ana")
        assert err.startswith("not_found") and "approve" in err  # a proposal until approved
        return refl["proposal_id"]

    # an extractive digest routes recall to its members in the default "digest" mode (issue 61): this
    # test reads how MCP renders an insight hit, so the server shows insights in their own place
    reflection = run(stdio(GRAPHCONS__RETRIEVAL__INSIGHTS="plain"), body)
    assert g.proposal(pending)["applied_by"] == "mcp"
    assert g.proposal(reflection)["status"] == "pending" and g.proposal(reflection)["kind"] == "reflect"


def test_recall_makes_one_facade_call_and_an_insight_shows_what_explain_says(g, config, embedder, monkeypatch):
    """Issue 60: recall called `explain` once per insight hit (N+1 facade calls). What it shows of an
    insight, the ids it cites and its source episodes, now comes with the one retrieve call and is what
    explain says."""
    cluster = add_incidents(g)
    iid = g.approve(g.synthesize(cluster, now=NOW).proposal_id, by="ana", now=NOW).insight_id
    said = g.explain(iid)
    cited = [c["id"] for c in said["tree"]["children"] if c["link"]["cited"]]
    calls: list[str] = []

    def counted(name, verb):
        def call(self, *args, **kwargs):
            calls.append(name)
            return verb(self, *args, **kwargs)
        return call

    for name, verb in vars(Graphcons).items():
        if inspect.isfunction(verb) and not name.startswith("_"):
            monkeypatch.setattr(Graphcons, name, counted(name, verb))

    async def body(s: Session):
        calls.clear()
        hits = (await s.ok("recall", query="checkout 503 after deploy", k=8, subject="checkout"))["hits"]
        return hits, list(calls)

    # the insight in its own place (an extractive digest routes to its members by default, issue 61)
    store = Store(Config(neo4j=config.neo4j, retrieval=RetrievalConfig(insights="plain")), embedder)
    try:
        hits, made = run(build_server(store, env={}), body)
    finally:
        store.close()
    assert made == ["retrieve"]
    (top,) = [h for h in hits if h["memory"]["id"] == iid]
    assert top["cites"] == cited and cited
    assert top["source_episodes"] == [x["id"] for x in said["sources"]] and len(said["sources"]) == len(cluster.member_ids)


def test_a_token_in_the_environment_narrows_stdio(g, stdio):
    g.add({"id": "team-1", "content": "The team deploys on Tuesdays.", "namespace": "team"})
    g.add({"id": "else-1", "content": "Another team deploys on Fridays.", "namespace": "else"})
    reader, record = g.create_token("desk", ["team"], "reader")

    async def body(s: Session):
        _, err = await s.call("remember", content="Deploys move to Wednesdays.")
        assert err.startswith("forbidden") and "writer role" in err
        hits = (await s.ok("recall", query="when does the team deploy", k=5))["hits"]
        assert {h["memory"]["id"] for h in hits} == {"team-1"}
        _, err = await s.call("explain", id="else-1")
        assert err.startswith("not_found")
        g.revoke_token(record["id"])  # stops at once, mid-session
        _, err = await s.call("recall", query="when does the team deploy")
        assert err.startswith("bad_input (GRAPHCONS_MCP_TOKEN)")

    run(stdio(GRAPHCONS_MCP_TOKEN=reader), body)

    async def refused(s: Session):
        _, err = await s.call("recall", query="deploys")
        assert err.startswith("bad_input (GRAPHCONS_MCP_TOKEN)")

    run(stdio(GRAPHCONS_MCP_TOKEN="gct_unknown"), refused)
    assert g.stats()["memories"] == 2


class HttpServer:
    """The streamable-HTTP MCP app served by uvicorn in a thread, over the test's store."""

    def __init__(self, config: Config, embedder):
        self.store = Store(config, embedder)
        self.port = free_port()
        app = build_server(self.store, transport="streamable-http", port=self.port).streamable_http_app()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self):
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            assert time.monotonic() < deadline and self.thread.is_alive(), "uvicorn did not start"
            time.sleep(0.05)
        return self

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(timeout=30)
        self.store.close()

    def transport(self, token: str):
        return streamable_http_client(self.url, http_client=httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(300, read=300)))


def test_streamable_http_applies_the_tokens_roles_and_namespaces(g, config, embedder):
    team = g.add({"id": "team-1", "content": "Checkout deploys need a cache warmup first.", "namespace": "team"}).id
    writer, _ = g.create_token("agent-w", ["team"], "writer")
    reader, _ = g.create_token("agent-r", ["team"], "reader")
    outsider, _ = g.create_token("agent-x", ["other"], "admin")
    reviewer, _ = g.create_token("agent-v", ["team"], "reviewer")
    with HttpServer(config, embedder) as srv:
        anonymous = httpx.post(srv.url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                               headers={"Accept": "application/json, text/event-stream"})
        assert anonymous.status_code == 401
        assert httpx.post(srv.url, json={}, headers={"Authorization": "Bearer gct_nope"}).status_code == 401

        async def as_writer(s: Session):
            assert {t.name for t in (await s.client.list_tools()).tools} == TOOLS
            out = await s.ok("remember", content="Checkout deploys on Tuesdays.", source="slack")
            assert out["namespace"] == "team"
            _, err = await s.call("remember", content="Elsewhere.", namespace="other")
            assert err.startswith("forbidden") and "namespace" in err
            _, err = await s.call("proposals", action="approve", proposal_id="p-1")
            assert err.startswith("forbidden") and "reviewer role" in err
            return out["id"]

        written = run(srv.transport(writer), as_writer)
        stored = g.get(written)
        assert stored.source == "api:agent-w" and stored.origin == "slack"  # the token is the source

        async def as_reader(s: Session):
            _, err = await s.call("remember", content="Readers cannot write.")
            assert err.startswith("forbidden")
            hits = (await s.ok("recall", query="checkout deploys", k=5))["hits"]
            assert {h["memory"]["id"] for h in hits} == {team, written}

        run(srv.transport(reader), as_reader)

        async def as_outsider(s: Session):
            _, err = await s.call("explain", id=team)
            assert err == f"not_found: no memory with id {team!r}"  # as if it did not exist
            _, err = await s.call("recall", query="checkout", namespace="team")
            assert err.startswith("forbidden")
            assert (await s.ok("recall", query="checkout"))["hits"] == []
            with pytest.raises(Exception, match="no memory"):
                await s.read(f"graphcons://memories/{team}")

        run(srv.transport(outsider), as_outsider)

        async def as_reviewer(s: Session):
            return (await s.ok("proposals", action="list"))["proposals"]

        assert run(srv.transport(reviewer), as_reviewer) == []
    assert g.stats()["memories"] == 2


# -- issue 41: schemas a model can read, errors in the documented form, outages, the score's meaning ----

def test_the_schemas_tell_a_model_every_kind_bound_and_argument(g, config, embedder):
    """Item 8: `kind` is an enum of the kinds admission accepts (core/memory.Kind), `k` has the configured
    bounds, every argument of every tool has its own description. Item 7: argument errors read
    `bad_input (field): ...`, without pydantic's text or link."""
    from graphcons.core.memory import Kind
    from graphcons.review.queue import KINDS

    store = Store(config, embedder)

    async def body(s: Session):
        tools = {t.name: t.input_schema for t in (await s.client.list_tools()).tools}
        assert tools["remember"]["properties"]["kind"]["enum"] == [k.value for k in Kind]
        assert tools["proposals"]["properties"]["kind"]["anyOf"][0]["enum"] == list(KINDS)
        k = tools["recall"]["properties"]["k"]
        assert (k["minimum"], k["maximum"]) == (1, config.service.max_k)
        undescribed = [f"{name}.{arg}" for name, schema in tools.items()
                       for arg, spec in schema["properties"].items() if len(spec.get("description", "")) < 15]
        assert undescribed == []
        _, err = await s.call("remember", content="A rumour about the cache.", kind="rumour")
        assert err.startswith("bad_input (kind): ") and "pydantic" not in err and "http" not in err, err
        _, err = await s.call("recall", query="cache", k=0)
        assert err.startswith("bad_input (k): ") and "pydantic" not in err, err
        _, err = await s.call("recall", query="cache", k=config.service.max_k + 1)
        assert err.startswith("bad_input (k): "), err
        _, err = await s.call("feedback", id="m-1", verdict="great")
        assert err.startswith("bad_input (verdict): "), err
        _, err = await s.call("remember", content="\u200b\u200b")  # item 5: invisible is blank here too
        assert err.startswith("bad_input (content): is blank"), err

    try:
        run(build_server(store), body)
    finally:
        store.close()
    assert g.stats()["memories"] == 0  # nothing of a refused call was written


def test_recall_says_the_order_is_the_ranking_and_what_score_is(g, config, embedder):
    """Item 6: the list order is the ranking (`rank`); `score` is relevance before the diversity step,
    and the tool description and the note say so instead of claiming the score orders the hits."""
    for i, text in enumerate(["Checkout returned 503 after deploy 4.1.", "Checkout returned 503 after deploy 4.2.",
                              "Checkout returned 503 after deploy 4.3.", "The payments pool ran dry after deploy 7.",
                              "Checkout 503s stopped once the cache was warmed."]):
        g.add({"id": f"c-{i}", "content": text, "subject": "checkout"})
    store = Store(config, embedder)

    async def body(s: Session):
        tools = {t.name: t for t in (await s.client.list_tools()).tools}
        assert "diversity" in tools["recall"].description and "ranking" in tools["recall"].description
        out = await s.ok("recall", query="checkout 503 after a deploy", k=5)
        assert [h["rank"] for h in out["hits"]] == list(range(1, len(out["hits"]) + 1)) and len(out["hits"]) == 5
        assert "rank order" in out["note"] and "diversity" in out["note"]
        assert "only orders" not in out["note"]

    try:
        run(build_server(store), body)
    finally:
        store.close()


def test_a_missing_profile_points_the_agent_at_the_reflect_tool(g, config, embedder):
    """Item 7: an agent has the `reflect` tool, not the CLI."""
    store = Store(config, embedder)

    async def body(s: Session):
        _, err = await s.call("profile", subject="user-bo")
        assert err.startswith("not_found: ") and "`reflect` tool" in err and "graphcons reflect" not in err, err

    try:
        run(build_server(store), body)
    finally:
        store.close()


def test_streamable_http_while_neo4j_is_down_answers_a_tool_error_and_recovers(g, config, embedder):
    """Item 1: Neo4j stops under `graphcons mcp --transport http`. A session already open and a new one
    (initialize with a valid token) both get the tool error `unavailable: ...` saying nothing was
    written, no HTTP 500; when Neo4j is back the same sessions work. (Before: 500 and MCPError -32603.)"""
    from outage_helpers import proxied

    proxy, cfg = proxied(config)
    token, _ = g.create_token("agent-w", ["team"], "writer")
    try:
        with HttpServer(cfg, embedder) as srv:
            async def body(s: Session):
                first = await s.ok("remember", content="The checkout cache is warmed after every deploy.")
                proxy.down()
                _, err = await s.call("remember", content="Deploys are frozen on Fridays.")
                assert err.startswith("unavailable: Neo4j is unavailable"), err
                assert "nothing of this request was written" in err and "127.0.0.1" not in err, err
                _, err = await s.call("recall", query="checkout cache")
                assert err.startswith("unavailable: "), err

                async def fresh(t: Session):  # a session opened during the outage
                    _, e = await t.call("recall", query="checkout cache")
                    assert e.startswith("unavailable: "), e
                    proxy.up()
                    return (await t.ok("recall", query="checkout cache"))["hits"]

                hits = await asyncio.wait_for(_session(srv.transport(token), fresh), 120)
                assert [h["memory"]["id"] for h in hits] == [first["id"]]
                again = await s.ok("remember", content="Deploys are frozen on Fridays.")
                return first["id"], again["id"]

            written = run(srv.transport(token), body)
            raw = httpx.post(srv.url, headers={"Authorization": "Bearer gct_unknown-token",
                                               "Accept": "application/json, text/event-stream"},
                             json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
            assert raw.status_code == 401  # with Neo4j up again, an unknown token is refused as before
    finally:
        proxy.close()
    assert {m.id for m in map(g.get, written)} == set(written)
    assert g.stats()["memories"] == 2  # nothing landed during the outage


async def _session(transport, body):
    async with Client(transport, read_timeout_seconds=300) as client:
        return await body(Session(client))


# -- issue 50 item 6: MCP refuses what HTTP refuses -----------------------------------------------

def test_arguments_are_as_strict_as_over_http(g, config, embedder):
    """An unknown argument (a typo such as `namespacee`) wrote the memory to the default namespace; "5",
    true and "300" were coerced to numbers; a query with a NUL was answered. Each is refused now, naming the
    argument, and nothing is written; every tool's schema forbids unknown properties."""
    store = Store(config, embedder)

    async def body(s: Session):
        tools = {t.name: t.input_schema for t in (await s.client.list_tools()).tools}
        assert {name: schema.get("additionalProperties") for name, schema in tools.items()} == dict.fromkeys(TOOLS, False)
        refused = [
            ("remember", {"content": "Deploys move to Wednesdays.", "namespacee": "team"}, "namespacee"),
            ("remember", {"content": "Deploys move to Wednesdays.", "links": '["m-1"]'}, "links"),
            ("remember", {"content": "Deploys move to Wednesdays.", "links": [{"target": "m-1", "kindd": "x"}]},
             "links[0].kindd"),
            ("remember", {"content": "Deploys move to Wednesdays.", "subject": "ops\ud800"}, "subject"),
            ("recall", {"query": "deploys", "k": "5"}, "k"),
            ("recall", {"query": "deploys", "k": True}, "k"),
            ("recall", {"query": "deploys\x00"}, "query"),
            ("recall", {"query": "deploys \udc00"}, "query"),
            ("context", {"query": "deploys", "budget_words": "300"}, "budget_words"),
            ("feedback", {"id": "m-1", "verdict": "useful", "note": None, "by": "me"}, "by"),
        ]
        for name, arguments, field in refused:
            _, err = await s.call(name, **arguments)
            assert err is not None and err.startswith(f"bad_input ({field}): "), (name, arguments, err)
        _, err = await s.call("remember", content="Deploys move to Wednesdays.", namespacee="team")
        assert err == "bad_input (namespacee): unknown argument", err
        _, err = await s.call("recall", query="deploys\x00")
        assert "NUL" in err, err
        assert (await s.ok("recall", query="deploys", k=5))["hits"] == []  # the same call, well typed, answers

    try:
        run(build_server(store), body)
    finally:
        store.close()
    assert g.stats()["memories"] == 0  # nothing of a refused call was written


# -- issue 50 item 11: the documented tools are the served ones -----------------------------------

def _served_tools(config) -> dict[str, dict]:
    """Each tool's input schema, as a client lists them (the store is opened only by a call)."""
    store = Store(config)

    async def body(s: Session):
        return {t.name: t.input_schema for t in (await s.client.list_tools()).tools}

    return run(build_server(store), body)


def test_docs_readme_and_help_list_every_tool_and_argument(config):
    """docs/MCP.md, the README and `graphcons mcp --help` listed 7 tools of 8 (no `context`) and
    `remember` without `created_at`: each now names exactly the served tools, and the doc's table each
    tool's arguments, the optional ones marked `?`."""
    import re
    from pathlib import Path

    import typer

    from graphcons.cli import app

    served = _served_tools(config)
    root = Path(__file__).resolve().parent.parent
    table = {}
    for name, args in re.findall(r"^\| `(\w+)` \| `([^`]*)` \|", (root / "docs/MCP.md").read_text(), re.M):
        args = re.sub(r" \([^)]*\)", "", args)  # "k? (1 to max_k)" -> "k?"
        table[name] = {a.rstrip("?"): a.endswith("?") for a in args.split(", ")}
    assert table == {name: {arg: arg not in schema.get("required", []) for arg in schema["properties"]}
                     for name, schema in served.items()}
    readme = (root / "README.md").read_text()
    sentence = readme[readme.index("**Over MCP**"):].split(" over stdio")[0]
    assert set(re.findall(r"`(\w+)`", sentence)) - {"graphcons"} == set(served)
    help_text = typer.main.get_command(app).commands["mcp"].help
    assert set(re.findall(r"\w+", help_text[help_text.index("(") + 1:help_text.index(")")])) == set(served)


def _rpc(srv, token: str, body: bytes | dict, session: str | None = None) -> dict:
    """One raw JSON-RPC POST to the streamable-HTTP endpoint (a body the SDK's client would not send)."""
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream",
               "Content-Type": "application/json", **({"Mcp-Session-Id": session} if session else {})}
    r = httpx.post(srv.url, content=body if isinstance(body, bytes) else json.dumps(body), headers=headers, timeout=120)
    data = [line[5:] for line in r.text.splitlines() if line.startswith("data:")] or [r.text]
    return {"status": r.status_code, "session": r.headers.get("mcp-session-id"), **json.loads(data[-1])}


def test_a_lone_surrogate_on_the_wire_names_the_argument(g, config, embedder):
    """JSON can carry "\\ud800"; the SDK's strict parser refused the whole message with JSON-RPC -32700
    "unexpected end of hex escape" and no field. Over streamable HTTP the call now reaches the tool, which
    answers `bad_input (query): ...` like the HTTP API's 400, and nothing is written."""
    token, _ = g.create_token("agent-w", ["team"], "writer")
    with HttpServer(config, embedder) as srv:
        hello = _rpc(srv, token, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                  "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                             "clientInfo": {"name": "probe", "version": "1"}}})
        session = hello["session"]
        httpx.post(srv.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, timeout=60,
                   headers={"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream",
                            "Mcp-Session-Id": session})
        for name, arguments, field in [("recall", b'{"query": "deploys \\ud800"}', "query"),
                                       ("remember", b'{"content": "Deploys move.", "links": ["m-\\udc00x"]}',
                                        "links[0]")]:
            body = (b'{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "' + name.encode()
                    + b'", "arguments": ' + arguments + b'}}')
            out = _rpc(srv, token, body, session)
            assert out["status"] == 200 and out.get("id") == 2, out
            result = out["result"]
            assert result["isError"], result
            assert result["content"][0]["text"] == (f"Error executing tool {name}: bad_input ({field}): "
                                                    "is not valid Unicode (a lone surrogate)"), result
    assert g.stats()["memories"] == 0


def test_a_lone_surrogate_over_stdio_names_the_argument(g, neo4j_settings, tmp_path):
    """Over stdio the SDK dropped a line it could not parse: the client waited forever. The call now
    answers `bad_input (query): ...` like every other refused argument."""
    from mcp_helpers import StdioPeer

    with StdioPeer(neo4j_settings, tmp_path) as peer:
        peer.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                         "clientInfo": {"name": "probe", "version": "1"}}}))
        assert json.loads(peer.answer())["id"] == 1
        peer.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        peer.send('{"jsonrpc": "2.0", "id": 2, "method": "tools/call", '
                  '"params": {"name": "recall", "arguments": {"query": "deploys \\ud800"}}}')
        out = json.loads(peer.answer())
    assert out["id"] == 2 and out["result"]["isError"], out
    assert out["result"]["content"][0]["text"] == ("Error executing tool recall: bad_input (query): "
                                                   "is not valid Unicode (a lone surrogate)")


def test_recall_and_context_take_as_of_and_when_and_mark_a_superseded_value(g, config, embedder):
    """Issue 51 / 47 over MCP: a value an update superseded comes after its successor, marked; as_of,
    when and when_mode are tool arguments; a bad as_of is an error naming it."""
    from current_helpers import Q, food_with_update

    food_with_update(g)
    store = Store(config, embedder)

    async def body(s: Session):
        hits = (await s.ok("recall", query=Q, k=3, namespace="food"))["hits"]
        order = [h["memory"]["id"] for h in hits]
        assert order.index("new") < order.index("old")
        old = hits[order.index("old")]
        assert (old["superseded_by"], old["until"]) == ("new", "2023-05-27T12:00:00+00:00")
        then = (await s.ok("recall", query=Q, k=3, namespace="food", as_of="2023-05-10"))["hits"]
        assert "old" in [h["memory"]["id"] for h in then] and "new" not in [h["memory"]["id"] for h in then]
        ctx = await s.ok("context", query=Q, namespace="food", budget_words=300)
        assert "earlier, until 27 May 2023:" in ctx["text"] and ctx["ids"].index("new") < ctx["ids"].index("old")
        june = await s.ok("context", query="What did I buy in May 2023?", namespace="food", when="auto",
                          when_mode="restrict", as_of="2023-05-03")
        assert set(june["ids"]) <= {"old", "f1", "f2"} and june["ids"]
        _, err = await s.call("recall", query=Q, namespace="food", as_of="soon")
        assert err.startswith("bad_input (as_of)"), err

    try:
        run(build_server(store), body)
    finally:
        store.close()


def test_recall_and_context_take_now_and_show_the_questions_window(g, config, embedder):
    """Issue 61 over MCP: `now` is what "last month" is counted from; the window is in the answer; a
    bad `now` is an error naming it."""
    from current_helpers import NOW, PURCHASES, add

    add(g, PURCHASES, namespace="shop")
    store = Store(config, embedder)

    async def body(s: Session):
        got = await s.ok("recall", query="What did I buy last month?", k=4, namespace="shop", now=NOW, when="auto")
        assert got["window"] == {"start": "2023-05-01", "end": "2023-05-31", "mode": "boost", "source": "question",
                                 "phrases": ["last month"]}
        assert "bike" in [h["memory"]["id"] for h in got["hits"]]
        ctx = await s.ok("context", query="What did I buy last month?", namespace="shop", now=NOW, when="auto")
        assert ctx["window"]["start"] == "2023-05-01" and "bike" in ctx["ids"]
        assert "window" not in await s.ok("recall", query="What did I buy?", namespace="shop", now=NOW, when="auto")
        for tool in ("recall", "context"):
            _, err = await s.call(tool, query="What did I buy last month?", namespace="shop", now="last week",
                                  when="auto")
            assert err.startswith("bad_input (now)"), err

    try:
        run(build_server(store), body)
    finally:
        store.close()
