"""Issue 63 item 1 (and 5): what recall knows reaches every door. A value an update superseded, an
excerpt of a long turn, `as_of` and `when`: the same over the Python API, the HTTP API, MCP, the
LangGraph store and the LangChain retriever; the update and card passes over HTTP and MCP; logs
without user content. Real Neo4j, a real uvicorn server, the MCP SDK's own client."""

from __future__ import annotations

import logging
from dataclasses import fields
from datetime import timedelta

import pytest
from pydantic_core import to_jsonable_python
from service_helpers import Server
from test_mcp import Session, run
from test_updates import NEW, NOW, OLD, T0

from graphcons.access.holder import Store
from graphcons.core.config import Config, ServiceConfig
from graphcons.mcp.server import build_server
from graphcons.recall.context import ContextLine
from graphcons.recall.hits import Hit
from graphcons.service import models

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
    assert models.ContextLine is ContextLine  # issue 60: one model of a line, not a copy that can drop a field


def said(value):
    """A JSON value without the nulls (HTTP sends every field of a hit; Python's to_dict those that say something)."""
    if isinstance(value, dict):
        return {k: said(v) for k, v in value.items() if v is not None}
    return [said(v) for v in value] if isinstance(value, list) else value


def test_an_http_hit_is_pythons_hit_field_for_field(g, server):
    """Issue 60: HTTP's hit was a model of its own that kept 7 of the hit's fields (no vector or keyword
    score, no `insights` above a memory) and typed its members as free objects."""
    updated(g)
    ours = said(to_jsonable_python([h.to_dict() for h in g.retrieve(Q, k=5, namespace="chat", record=False)]))
    assert any("superseded_by" in h and "until" in h for h in ours)
    reader = server.client(g.create_token("agent-h", ["chat"], "reader")[0])
    r = reader.post("/v1/retrieve", json={"query": Q, "k": 5, "namespace": "chat"})
    assert r.status_code == 200, r.text
    assert said(r.json()["hits"]) == ours
    schema = server.app.openapi()["components"]["schemas"]
    assert {f.name for f in fields(Hit)} == set(schema["Hit"]["properties"])
    assert schema["Hit"]["properties"]["members"]["anyOf"][0]["items"] == {"$ref": "#/components/schemas/Member"}


# -- item 1: the LangGraph store and the LangChain retriever --------------------------------------------

def put_turns(g, store, monkeypatch) -> tuple[tuple[str, str], str, str]:
    """OLD and NEW put through `store` as two chat turns, a month and ten days apart (the store's put
    takes no date: the clock is set as the agent's days pass), NEW superseding OLD through an applied
    update proposal. Returns (namespace tuple, older key, newer key)."""
    from datetime import datetime, timezone

    import graphcons.api

    ns = ("chat", "user")
    for key, turn in (("turn-1", OLD), ("turn-2", NEW)):
        monkeypatch.setattr(graphcons.api, "utcnow", lambda at=turn["created_at"]: at)
        store.put(ns, key, {"data": turn["content"], "session": key})
    monkeypatch.setattr(graphcons.api, "utcnow", lambda: datetime.now(timezone.utc))
    g.updates(dry_run=False, now=NOW)
    (p,) = g.proposals(kind="update")
    g.approve(p["id"], by="ana", now=NOW)
    return ns, "turn-1", "turn-2"


@pytest.mark.parametrize("door", ["in process", "over HTTP"])
def test_store_items_and_documents_carry_superseded_by_until_and_as_of_works(g, server, monkeypatch, door):
    """Before: a store item and a Document of the older value read exactly like the current one (no
    `superseded_by`, no `until`), and `GraphconsRetriever(as_of=...)` was accepted and ignored."""
    from graphcons.integrations.langchain import GraphconsRetriever
    from graphcons.integrations.langgraph import GraphconsStore

    if door == "in process":
        store, retriever = GraphconsStore(g), lambda **kw: GraphconsRetriever.over(g, namespace="chat", **kw)
    else:
        token = g.create_token("agent", ["chat"], "writer")[0]
        store = GraphconsStore.over_http(server.url, token)
        retriever = lambda **kw: GraphconsRetriever.over_http(server.url, token, namespace="chat", **kw)  # noqa: E731
    ns, older, newer = put_turns(g, store, monkeypatch)

    items = {it.key: it for it in store.search(ns, query=Q, limit=5)}
    assert list(items)[:2] == [newer, older]  # the current value first
    note = items[older].value["_graphcons"]
    assert (note["superseded_by"], note["until"][:10], note["kind"]) == (newer, "2026-10-11", "episode")
    assert items[older].value["data"] == OLD["content"]  # the value as put, with graphcons' note beside it
    assert items[newer].value == {"data": NEW["content"], "session": newer}  # a current value: exactly as put
    then = store.search(ns, query=Q, limit=5, as_of="2026-09-10")
    assert [it.key for it in then] == [older] and "_graphcons" not in then[0].value  # current then
    with pytest.raises(ValueError, match="query"):
        store.search(ns, as_of="2026-09-10")
    # a value read back and put again keeps no stale note (the key is reserved)
    store.put(ns, older, items[older].value)
    assert "_graphcons" not in store.get(ns, older).value

    docs = {d.metadata["id"]: d for d in retriever(k=5).invoke(Q)}
    new_id, old_id = (m.id for key in (newer, older) for m in g.memories("chat") if m.metadata["langgraph"]["key"] == key)
    assert (docs[old_id].metadata["superseded_by"], docs[old_id].metadata["until"][:10]) == (new_id, "2026-10-11")
    assert docs[new_id].metadata["superseded_by"] is None and docs[new_id].metadata["kind"] == "episode"
    assert list(docs).index(new_id) < list(docs).index(old_id)
    past = [d.metadata["id"] for d in retriever(k=5, as_of="2026-09-10").invoke(Q)]
    assert old_id in past and new_id not in past
    assert [d.metadata["id"] for d in retriever(k=5).invoke(Q, as_of="2026-09-10")] == past  # per call too
    restricted = retriever(k=5, when="2026-10", when_mode="restrict").invoke(Q)
    assert [d.metadata["id"] for d in restricted] == [new_id]


def test_the_retriever_refuses_an_argument_it_does_not_know(g):
    """Before: `subjet=` and `search_kwargs=` were ignored (pydantic's default), so a typo silently
    searched every subject."""
    from graphcons.integrations.langchain import GraphconsRetriever

    with pytest.raises(ValueError, match="no argument 'subjet' \\(did you mean 'subject'\\?\\)"):
        GraphconsRetriever.over(g, subjet="user")
    with pytest.raises(ValueError, match="search_kwargs.*k=5"):
        GraphconsRetriever.over(g, search_kwargs={"k": 3})
    with pytest.raises(ValueError, match="as_of must be a date"):
        GraphconsRetriever.over(g, as_of="soon")
    with pytest.raises(ValueError, match="when_mode"):
        GraphconsRetriever.over(g, when="auto", when_mode="only")
    with pytest.raises(TypeError, match="unknown argument 'subjet'"):
        GraphconsRetriever.over(g).invoke("anything", subjet="user")


# -- item 1: the update and card passes over HTTP and MCP; their proposals in the one review queue -----------

def test_the_update_pass_runs_over_http_and_mcp_and_its_proposals_wait_in_the_queue(g, server, config, embedder):
    """Before: `POST /v1/jobs/updates` and `/v1/jobs/cards` answered 422 (not in the route's enum) and no
    MCP tool ran either pass: an HTTP-only or MCP-only agent could not keep its knowledge current."""
    for ns in ("chat", "other"):
        for turn in (OLD, NEW):
            g.add({**turn, "namespace": ns})
    admin = server.client(g.create_token("chat-admin", ["chat"], "admin")[0])
    dry = admin.post("/v1/jobs/updates", json={})  # a dry run by default, in the token's one namespace
    assert dry.status_code == 200, dry.text
    assert (dry.json()["dry_run"], dry.json()["namespace"], len(dry.json()["proposed"])) == (True, "chat", 1)
    same = g.updates(now=NOW, namespace="chat").to_dict()  # issue 60: the pass's one wire shape, every pair whole
    assert {k: v for k, v in dry.json().items() if k not in ("run_id", "now")} == {
        k: v for k, v in same.items() if k not in ("run_id", "now")}
    assert g.proposals() == []
    assert admin.post("/v1/jobs/updates", json={"namespace": "other"}).status_code == 403
    writer = server.client(g.create_token("chat-writer", ["chat"], "writer")[0])
    assert writer.post("/v1/jobs/updates", json={}).status_code == 403  # an admin's, as every job
    run_ = admin.post("/v1/jobs/updates", json={"dry_run": False, "namespace": "chat"})
    assert run_.status_code == 200 and run_.json()["dry_run"] is False, run_.text
    assert [(p["kind"], p["namespace"]) for p in g.proposals()] == [("update", "chat")]  # other untouched
    cards = admin.post("/v1/jobs/cards", json={})
    assert cards.status_code == 200 and (cards.json()["job"], cards.json()["dry_run"]) == ("cards", True), cards.text

    reviewer = server.client(g.create_token("chat-reviewer", ["chat"], "reviewer")[0])
    (queued,) = reviewer.get("/v1/proposals", params={"kind": "update", "status": "pending"}).json()
    assert reviewer.post(f"/v1/proposals/{queued['id']}/approve").json()["status"] == "applied"
    lines = reviewer.post("/v1/context", json={"query": Q, "namespace": "chat"}).json()["lines"]
    assert any(line.get("superseded_by") for line in lines)

    async def as_admin(s: Session):
        out = await s.ok("run_job", job="updates")
        assert (out["dry_run"], out["namespace"], len(out["proposed"])) == (True, "other", 1)
        assert (await s.ok("proposals", action="list", kind="update"))["proposals"] == []
        await s.ok("run_job", job="updates", dry_run=False)
        (p,) = (await s.ok("proposals", action="list", kind="update"))["proposals"]
        assert p["namespace"] == "other" and len(p["memory_ids"]) == 2
        await s.ok("proposals", action="approve", proposal_id=p["id"])
        hits = (await s.ok("recall", query=Q, k=3))["hits"]
        assert any(h.get("superseded_by") for h in hits)
        assert (await s.ok("run_job", job="cards"))["job"] == "cards"
        _, err = await s.call("run_job", job="updates", namespace="chat")
        assert err.startswith("forbidden"), err

    mcp(config, embedder, as_admin, g.create_token("other-admin", ["other"], "admin")[0])

    async def as_writer(s: Session):
        _, err = await s.call("run_job", job="updates")
        assert err.startswith("forbidden") and "admin" in err, err
        _, err = await s.call("run_job", job="decay")
        assert err.startswith("bad_input (job)"), err

    mcp(config, embedder, as_writer, g.create_token("other-writer", ["other"], "writer")[0])
    assert [p["status"] for p in g.proposals(kind="update")] == ["applied", "applied"]


# -- item 5: logs without user content; a missing or bad MCP token says so -------------------------------------

def _refusal(transport) -> str:
    """What an MCP client sees when the server refuses its session: the error's text."""
    async def body(s: Session):
        await s.client.list_tools()

    with pytest.raises(BaseException) as caught:
        run(transport, body)
    err = caught.value
    while isinstance(err, BaseExceptionGroup):  # the SDK's task groups wrap it
        err = err.exceptions[0]
    return str(err)


def test_a_missing_or_bad_mcp_token_says_401_and_why_to_the_client(g, config, embedder):
    """Before: the SDK's client showed `Server returned an error response`, no word of 401 or the token."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client
    from test_mcp import HttpServer

    revoked, record = g.create_token("gone", ["chat"], "reader")
    g.revoke_token(record["id"], by="ana")
    with HttpServer(config, embedder) as srv:
        def client(headers):
            return streamable_http_client(srv.url, http_client=httpx2.AsyncClient(headers=headers))

        missing = _refusal(client({}))
        assert "401" in missing and "no API token" in missing and "Authorization: Bearer" in missing, missing
        for token in ("gct_nope", revoked):
            bad = _refusal(client({"Authorization": f"Bearer {token}"}))
            assert "401" in bad and "unknown or revoked" in bad, bad
        raw = httpx2.post(srv.url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                          headers={"Accept": "application/json, text/event-stream"})
        assert raw.status_code == 401 and 'error="invalid_token"' in raw.headers["www-authenticate"]


class Lines(logging.Handler):
    """Every record a logger passes, formatted as a log file would hold it."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def test_the_access_log_holds_no_store_key_or_subject(g, config, embedder):
    """Before: uvicorn's access log held `/v1/memories/<the caller's key>` and `/v1/profiles/<subject>`."""
    import threading
    import time

    import uvicorn
    from service_helpers import free_port

    from graphcons.access.logmask import ROUTE_WORDS
    from graphcons.service import create_app

    app, port = create_app(config, embedder=embedder), free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="info"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    while not srv.started:
        time.sleep(0.05)
    access = Lines()
    logging.getLogger("uvicorn.access").addHandler(access)
    try:
        import httpx

        token = g.create_token("w", ["chat"], "writer")[0]
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"Bearer {token}"}) as c:
            assert c.put("/v1/memories/ana-private-key", json={"content": "Ana's flat is on Elm Street."}).status_code == 201
            assert c.get("/v1/memories/chat:ana-private-key/history").status_code == 200
            assert c.get("/v1/profiles/ana-private-subject").status_code in (200, 404)
            assert c.post("/v1/jobs/updates", json={}).status_code == 403
    finally:
        srv.should_exit = True
        thread.join(timeout=30)
        logging.getLogger("uvicorn.access").removeHandler(access)
    logged = "\n".join(access.lines)
    assert "ana-private" not in logged, logged
    assert '"PUT /v1/memories/*** HTTP/1.1" 201' in logged and "GET /v1/memories/***/history" in logged, logged
    assert "POST /v1/jobs/updates HTTP/1.1" in logged  # the routes' own words stay readable
    served = {w for path in app.openapi()["paths"] for w in path.split("/") if w and not w.startswith("{")}
    assert served <= ROUTE_WORDS  # a new route's words are listed, or its lines read "***"


def test_the_mcp_sdk_log_holds_no_subject_or_argument_value(g, config, embedder):
    """Before: the MCP SDK's INFO log held `Tool 'profile' failed: ... no profile for '<user>'` and
    `Tool 'recall' failed: ... got '<the value sent>'`."""
    sdk = Lines()
    logging.getLogger("mcp").addHandler(sdk)
    level = logging.getLogger("mcp").level
    logging.getLogger("mcp").setLevel(logging.INFO)

    async def body(s: Session):
        _, err = await s.call("profile", subject="ana-private-subject")
        assert "ana-private-subject" in err  # the caller is told; the log is not
        _, err = await s.call("recall", query="where does Ana live?", as_of="ana-private-value")
        assert err.startswith("bad_input (as_of)")
        with pytest.raises(Exception):
            await s.read("graphcons://memories/ana-private-id")

    try:
        mcp(config, embedder, body)
    finally:
        logging.getLogger("mcp").removeHandler(sdk)
        logging.getLogger("mcp").setLevel(level)
    logged = "\n".join(sdk.lines)
    assert "ana-private" not in logged, logged
    assert "Tool 'profile' failed: 'not_found'" in logged and "Tool 'recall' failed: 'bad_input (as_of)'" in logged
    assert "Resource 'graphcons://memories/***' failed: '***'" in logged, logged  # its text names the id


def test_mcp_recall_carries_the_event_time_pythons_hit_has(g, config, embedder):
    """Before: an MCP hit's memory had created_at only; the day its text names was Python's and HTTP's alone."""
    said = g.add({"content": "I ran my first 10k race last Saturday and finished in 52 minutes.", "subject": "user",
                  "namespace": "chat", "created_at": "2023-05-24T10:00:00+00:00"}).id
    (ours,) = [h.memory for h in g.retrieve("when did I run a 10k race?", k=3, namespace="chat", record=False)]
    assert ours.event_start == "2023-05-20"

    async def body(s: Session):
        return (await s.ok("recall", query="when did I run a 10k race?", k=3, namespace="chat"))["hits"]

    (hit,) = mcp(config, embedder, body, g.create_token("r", ["chat"], "reader")[0])
    assert hit["memory"]["id"] == said
    assert (hit["memory"]["event_start"], hit["memory"]["event_end"]) == (ours.event_start, ours.event_end)
