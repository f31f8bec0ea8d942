"""The HTTP API (issue 16) through a real uvicorn server on 127.0.0.1 and the real Neo4j:
tokens, scopes, errors as statuses, limits, sources bound to the caller."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from service_helpers import Server, counts
from synthesis_helpers import NOW, add_incidents

from graphcons.core.config import Config, Neo4jConfig, ServiceConfig

ROLES = ("reader", "writer", "reviewer", "admin")


@pytest.fixture(scope="module")
def server(neo4j_settings, embedder):
    cfg = Config(neo4j=neo4j_settings, service=ServiceConfig(max_batch=5, max_body_bytes=64 * 1024))
    with Server(cfg, embedder) as srv:
        yield srv


@pytest.fixture
def api(g, server):
    """The server over an empty store, and one token per role on namespace 'team'."""
    tokens = {r: g.create_token(f"{r}-1", ["team"], r)[0] for r in ROLES}
    return server, tokens


def body(resp):
    data = resp.json()
    assert "Traceback" not in resp.text and data["message"], resp.text
    return data


def test_healthz_needs_no_token_and_everything_else_does(g, api):
    server, tokens = api
    assert server.client().get("/healthz").json() == {"status": "ok", "neo4j": "ok", "gds": g.db.gds_version()}
    r = server.client().get("/v1/proposals")
    assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer" and body(r)["error"] == "unauthenticated"
    assert server.client("gct_not-a-token").get("/v1/proposals").status_code == 401
    spec = server.client().get("/openapi.json").json()
    assert "/v1/memories" in spec["paths"] and "/v1/proposals/{proposal_id}/approve" in spec["paths"]


def test_the_memory_verbs_over_http(g, api):
    server, tokens = api
    w = server.client(tokens["writer"])
    r = w.post("/v1/memories", json={"content": "Deploy 4.2 caused 503s on checkout.", "subject": "checkout",
                                    "origin": "pagerduty", "created_at": "2026-11-02T10:00:00+00:00"})
    assert r.status_code == 201, r.text
    a = r.json()["id"]
    got = w.get(f"/v1/memories/{a}").json()
    assert got["namespace"] == "team" and got["source"] == "api:writer-1" and got["origin"] == "pagerduty"
    b = w.post("/v1/memories", json={"content": "Checkout served 503 after deploy 4.3; cache was cold.",
                                     "subject": "checkout", "links": [{"target": a, "kind": "same_incident"}]}).json()
    assert b["linked"] == 1 and b["created"]
    edited = w.patch(f"/v1/memories/{a}", json={"content": "Deploy 4.2 caused 503s on checkout for 12 minutes."})
    assert edited.status_code == 200 and edited.json()["version"] == 2
    assert [v["version"] for v in w.get(f"/v1/memories/{a}/history").json()] == [1, 2]
    assert w.post(f"/v1/memories/{b['id']}/links", json={"target": a, "kind": "related"}).json() == {"linked": 1}
    acc = w.post("/v1/access", json={"session": "s1", "ids": [a, b["id"]]}).json()
    assert acc["accessed"] == 2 and acc["pairs"] == 1 and acc["session"] == "api:writer-1/s1"
    hits = w.post("/v1/retrieve", json={"query": "503 after a deploy", "k": 2}).json()["hits"]
    assert {h["memory"]["id"] for h in hits} == {a, b["id"]}
    assert w.get("/v1/search", params={"text": "cache"}).json()["hits"][0]["memory"]["id"] == b["id"]
    assert w.get(f"/v1/memories/{a}/explain").json()["id"] == a
    assert w.get("/v1/clusters").status_code == 200
    # every write through the API is audited with the caller
    adds = [x["details"] for x in g.audit_log(op="add")]
    assert {d["source"] for d in adds} == {"api:writer-1"}
    assert g.audit_log(op="edit")[0]["details"]["source"] == "api:writer-1"
    assert g.audit_log(op="link")[0]["details"]["by"] == "api:writer-1"


def test_errors_are_statuses_with_a_message_and_the_field(g, api):
    server, tokens = api
    w = server.client(tokens["writer"])
    before = counts(g)
    cases = [
        ({"content": "   "}, 400, "content"),
        ({"content": "x", "kind": "rumour"}, 422, "kind"),
        ({"content": "x", "importance": "high"}, 422, "importance"),
        ({"content": "x", "importance": 3}, 422, "importance"),
        ({"content": "x", "source": "someone-else"}, 422, "source"),
        ({"content": "x", "created_at": "yesterday"}, 400, "created_at"),
        ({"content": "x", "links": [{"target": "m-nope"}]}, 400, "links.target"),
        ({"content": "x", "namespace": "elsewhere"}, 403, "namespace"),
        ({"title": "no content"}, 422, "content"),
    ]
    for payload, status, field in cases:
        r = w.post("/v1/memories", json=payload)
        assert (r.status_code, body(r)["field"]) == (status, field), (payload, r.text)
    r = w.post("/v1/memories", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 422 and body(r)
    assert w.get("/v1/memories/m-nope").status_code == 404
    assert w.get("/v1/search", params={"text": "AND ("}).status_code == 200  # any text is a valid query
    assert body(w.get("/v1/search", params={"text": "   "}))["field"] == "text"
    assert w.post("/v1/retrieve", json={"query": "x", "k": 5000}).status_code == 422
    assert counts(g) == before  # nothing written by any of them


def test_request_size_and_batch_limits(g, api):
    server, tokens = api
    w = server.client(tokens["writer"])
    before = counts(g)
    r = w.post("/v1/memories", json={"content": "x" * 100_000})
    assert r.status_code == 413 and body(r)["error"] == "too_large"
    six = [{"content": f"memory number {i}"} for i in range(6)]
    r = w.post("/v1/memories/batch", json={"memories": six})
    assert r.status_code == 400 and body(r)["field"] == "memories"
    bad = [{"content": "fine one"}, {"content": "   "}, {"content": "fine two"}]
    r = w.post("/v1/memories/batch", json={"memories": bad})
    assert r.status_code == 400 and body(r)["field"] == "memories[1].content"
    assert counts(g) == before  # one bad memory: nothing of the batch is written
    ok = w.post("/v1/memories/batch", json={"memories": six[:3]}).json()["results"]
    assert [x["created"] for x in ok] == [True] * 3


def test_neo4j_down_is_503_never_a_crash(neo4j_settings, embedder):
    down = Config(neo4j=Neo4jConfig(uri="bolt://127.0.0.1:9", password="x"))
    with Server(down, embedder) as srv:
        r = srv.client().get("/healthz")
        assert r.status_code == 503 and body(r)["error"] == "unavailable"
        r = srv.client("gct_anything").get("/v1/memories/m-1")
        assert r.status_code == 503 and "Neo4j" in body(r)["message"]


def test_repetition_from_one_caller_is_one_source(g, api):
    server, tokens = api
    claim = {"content": "The Apollo deadline moved to Friday.", "subject": "apollo"}
    w = server.client(tokens["writer"])
    for i in range(10):
        r = w.post("/v1/memories", json={**claim, "origin": f"source-{i}"})
        assert r.status_code in (200, 201)
    mid = r.json()["id"]
    m = w.get(f"/v1/memories/{mid}").json()
    assert m["evidence_count"] == 1 and m["sources"] == ["api:writer-1"]
    for name in ("agent-b", "agent-c"):
        tok, _ = g.create_token(name, ["team"], "writer")
        assert server.client(tok).post("/v1/memories", json={**claim, "origin": "source-0"}).json()["id"] == mid
    m = w.get(f"/v1/memories/{mid}").json()
    assert m["evidence_count"] == 3 and m["sources"] == ["api:writer-1", "api:agent-b", "api:agent-c"]


def _proposal(g):
    out = g.synthesize(add_incidents(g, namespace="team"), now=NOW)
    assert out.status == "proposed"
    return out.proposal_id


def test_authorisation_matrix(g, api):
    """Each role x each endpoint x own / other namespace."""
    server, tokens = api
    mine = g.add({"content": "Our deploys warm the cache first.", "namespace": "team"}).id
    theirs = g.add({"content": "Their deploys never warm the cache.", "namespace": "other"}).id
    pid = _proposal(g)
    other_pid = g.synthesize(add_incidents(g, rows=[(f"o{i}", t, s, d) for i, (_, t, s, d) in
                                                    enumerate(g_rows())], namespace="other"), now=NOW).proposal_id
    # (method, path, json, least role) for the caller's own namespace
    own = [
        ("GET", f"/v1/memories/{mine}", None, "reader"),
        ("GET", f"/v1/memories/{mine}/history", None, "reader"),
        ("GET", f"/v1/memories/{mine}/explain", None, "reader"),
        ("POST", "/v1/retrieve", {"query": "cache"}, "reader"),
        ("GET", "/v1/search?text=cache", None, "reader"),
        ("GET", "/v1/clusters", None, "reader"),
        ("GET", "/v1/proposals", None, "reader"),
        ("GET", f"/v1/proposals/{pid}", None, "reader"),
        ("POST", "/v1/memories", {"content": "A new one."}, "writer"),
        ("POST", "/v1/memories/batch", {"memories": [{"content": "Batch one."}]}, "writer"),
        ("PATCH", f"/v1/memories/{mine}", {"importance": 0.9}, "writer"),
        ("POST", f"/v1/memories/{mine}/links", {"target": "inc-1"}, "writer"),
        ("POST", "/v1/access", {"session": "s", "ids": [mine]}, "writer"),
        ("POST", f"/v1/proposals/{pid}/reject", {"reason": "not now"}, "reviewer"),
        ("GET", "/v1/tokens", None, "admin"),
    ]
    for method, path, payload, least in own:
        for r in ROLES:
            resp = server.client(tokens[r]).request(method, path, json=payload)
            allowed = ROLES.index(r) >= ROLES.index(least)
            if allowed:
                assert resp.status_code in (200, 201), (r, method, path, resp.text)
            else:
                assert resp.status_code == 403 and body(resp)["error"] == "forbidden", (r, method, path, resp.text)
    # another namespace: its memories and proposals do not exist for this token, whatever the role
    other = [
        ("GET", f"/v1/memories/{theirs}", None),
        ("GET", f"/v1/memories/{theirs}/history", None),
        ("GET", f"/v1/memories/{theirs}/explain", None),
        ("PATCH", f"/v1/memories/{theirs}", {"importance": 0.1}),
        ("POST", f"/v1/memories/{theirs}/links", {"target": mine}),
        ("POST", "/v1/access", {"session": "s", "ids": [theirs]}),
        ("GET", f"/v1/proposals/{other_pid}", None),
        ("POST", f"/v1/proposals/{other_pid}/approve", None),
        ("POST", f"/v1/proposals/{other_pid}/reject", {"reason": "x"}),
        ("POST", f"/v1/proposals/{other_pid}/revert", {"reason": "x"}),
    ]
    for method, path, payload in other:
        for r in ROLES:
            resp = server.client(tokens[r]).request(method, path, json=payload)
            if resp.status_code == 403:  # a role too low is refused before looking anything up
                assert r in ("reader", "writer")
                continue
            assert resp.status_code == 404, (r, method, path, resp.text)
            swap = {theirs: "m-nope", other_pid: "p-nope"}
            path2, payload2 = path, json.dumps(payload)
            for old, new in swap.items():
                path2, payload2 = path2.replace(old, new), payload2.replace(old, new)
            missing = server.client(tokens[r]).request(method, path2, json=json.loads(payload2))
            assert body(resp)["message"].replace(theirs, "?").replace(other_pid, "?") == \
                body(missing)["message"].replace("m-nope", "?").replace("p-nope", "?")
    for r in ROLES:  # writing into another namespace, reading it, linking to it
        c = server.client(tokens[r])
        if ROLES.index(r) >= 1:
            assert c.post("/v1/memories", json={"content": "x", "namespace": "other"}).status_code == 403
            link = c.post(f"/v1/memories/{mine}/links", json={"target": theirs})
            assert link.status_code == 400 and "unknown memory id" in body(link)["message"]
        assert c.post("/v1/retrieve", json={"query": "cache", "namespace": "other"}).status_code == 403
        assert all(h["memory"]["namespace"] == "team" for h in
                   c.post("/v1/retrieve", json={"query": "deploys warm the cache", "k": 10}).json()["hits"])
        assert [p["id"] for p in c.get("/v1/proposals").json()] == [pid]
    # store-wide operations need admin over every namespace
    for r in ROLES:
        assert server.client(tokens[r]).post("/v1/jobs/decay", json={}).status_code == 403
        assert server.client(tokens[r]).get("/v1/stats").status_code == 403
    root, _ = g.create_token("root", ["*"], "admin")
    assert server.client(root).post("/v1/jobs/decay", json={"now": "2026-12-01T00:00:00+00:00"}).status_code == 200
    assert server.client(root).get("/v1/stats").json()["memories"] >= 2


def g_rows():
    from synthesis_helpers import INCIDENTS
    return INCIDENTS


def test_review_through_the_api(g, api):
    server, tokens = api
    pid = _proposal(g)
    rev = server.client(tokens["reviewer"])
    d = rev.post(f"/v1/proposals/{pid}/approve").json()
    assert d["status"] == "applied" and d["changed"] and d["insight_id"]
    again = rev.post(f"/v1/proposals/{pid}/approve").json()
    assert again["changed"] is False
    conflict = rev.post(f"/v1/proposals/{pid}/reject", json={"reason": "too late"})
    assert conflict.status_code == 409 and body(conflict)["error"] == "conflict"
    back = rev.post(f"/v1/proposals/{d['insight_id']}/revert", json={"reason": "wrong"}).json()
    assert back["status"] == "reverted"
    p = g.proposal(pid)
    assert p["applied_by"] == "api:reviewer-1" and p["reverted_by"] == "api:reviewer-1"


def test_tokens_cli_shows_once_stores_a_hash_and_revokes(g, api, config):
    server, _ = api
    env = {"NEO4J_URI": config.neo4j.uri, "PATH": "/usr/bin:/bin"}
    if config.neo4j.password:
        env["NEO4J_PASSWORD"] = config.neo4j.password
    import os
    env.update({k: v for k, v in os.environ.items() if k.startswith(("GRAPHCONS_NEO4J", "PYTHON"))})

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "graphcons", *args], capture_output=True, text=True, env=env)

    made = cli("tokens", "create", "--name", "ci-bot", "--namespace", "team", "--namespace", "ops",
               "--role", "writer", "--json")
    assert made.returncode == 0, made.stderr
    out = json.loads(made.stdout)
    token = out["token"]
    assert out["namespaces"] == ["ops", "team"] and out["role"] == "writer"
    stored = g.db.run_text("MATCH (t:ApiToken {id: $id}) RETURN t {.*} AS t", id=out["id"])[0]["t"]
    assert token not in json.dumps(stored, default=str) and len(stored["hash"]) == 64
    assert token not in cli("tokens", "list", "--json").stdout
    c = server.client(token)
    assert c.post("/v1/memories", json={"content": "From CI.", "namespace": "ops"}).status_code == 201
    assert cli("tokens", "create", "--name", "x", "--namespace", "team", "--role", "god").returncode == 2
    assert cli("tokens", "revoke", out["id"]).returncode == 0
    assert c.get("/v1/proposals").status_code == 401
    assert cli("tokens", "revoke", "t-nope").returncode == 3
    assert [a["op"] for a in g.audit_log(target=out["id"])] == ["token_revoke", "token_create"]


def test_retrieve_and_context_take_as_of_and_when_and_mark_a_superseded_value(g, server):
    """Issue 51 / 47 over HTTP: the body's as_of, when and when_mode; a hit an update superseded carries
    superseded_by and until and comes after its successor; a bad as_of is 400 naming it."""
    from current_helpers import Q, food_with_update

    food_with_update(g)
    c = server.client(g.create_token("reader-f", ["food"], "reader")[0])
    hits = c.post("/v1/retrieve", json={"query": Q, "k": 3}).json()["hits"]
    order = [h["memory"]["id"] for h in hits]
    assert order.index("new") < order.index("old")
    assert (hits[order.index("old")]["superseded_by"], hits[order.index("old")]["until"]) == \
        ("new", "2023-05-27T12:00:00+00:00")
    assert hits[order.index("new")]["superseded_by"] is None
    then = c.post("/v1/retrieve", json={"query": Q, "k": 3, "as_of": "2023-05-10"}).json()["hits"]
    assert "old" in [h["memory"]["id"] for h in then] and "new" not in [h["memory"]["id"] for h in then]
    ctx = c.post("/v1/context", json={"query": Q, "budget_words": 300}).json()
    assert "earlier, until 27 May 2023:" in ctx["text"]
    may = c.post("/v1/context", json={"query": "What happened in May 2023?", "when": "auto", "when_mode": "restrict",
                                      "as_of": "2023-05-03T00:00:00+00:00"}).json()
    assert may["ids"] and set(may["ids"]) <= {"old", "f1", "f2"}
    bad = c.post("/v1/retrieve", json={"query": Q, "as_of": "soon"})
    assert (bad.status_code, body(bad)["field"]) == (400, "as_of")
    assert c.post("/v1/context", json={"query": Q, "when_mode": "sometimes"}).status_code == 422


def test_retrieve_and_context_take_now_and_show_the_questions_window(g, server):
    """Issue 61 over HTTP: the body's `now` is what "last month" is counted from; the window the ranking
    used is in the answer (absent when the question names no time); a bad `now` is 400 naming it."""
    from current_helpers import NOW, PURCHASES, add

    add(g, PURCHASES, namespace="shop")
    c = server.client(g.create_token("reader-s", ["shop"], "reader")[0])
    got = c.post("/v1/retrieve", json={"query": "What did I buy last month?", "k": 4, "now": NOW, "mode": "vector",
                                       "when": "auto"})
    assert got.status_code == 200, got.text
    assert got.json()["window"] == {"start": "2023-05-01", "end": "2023-05-31", "mode": "boost", "source": "question",
                                    "phrases": ["last month"]}
    assert got.json()["hits"][0]["memory"]["id"] == "bike"
    ctx = c.post("/v1/context", json={"query": "What did I buy last month?", "now": NOW, "when": "auto"}).json()
    assert ctx["window"]["end"] == "2023-05-31" and "bike" in ctx["ids"]
    assert c.post("/v1/retrieve", json={"query": "What did I buy?", "now": NOW, "when": "auto"}).json()["window"] is None
    assert "window" not in c.post("/v1/context", json={"query": "What did I buy?", "now": NOW, "when": "auto"}).json()
    for route in ("/v1/retrieve", "/v1/context"):
        bad = c.post(route, json={"query": "What did I buy last month?", "now": "last week", "when": "auto"})
        assert (bad.status_code, body(bad)["field"]) == (400, "now"), bad.text
        edge = c.post(route, json={"query": "what did I buy yesterday?", "now": "0001-01-01", "when": "auto"})
        assert edge.status_code == 200, edge.text


def test_the_context_budget_counts_what_a_reader_pays(g, server):
    """Issue 59 item 3: a 20,000-character "word" and a paragraph of Japanese (no spaces) no longer walk
    through a 10-word budget; a budget in tokens alone bounds the block's model tokens."""
    from graphcons.core.cost import tokens

    w = server.client(g.create_token("writer-b", ["budget"], "writer")[0])
    long_word = "zebra" + "a" * 19_900
    japanese = "東京の新しいオフィスは駅の近くにあり、チームは毎週月曜日にそこで会議を開きます" * 200
    short = "The zebra enclosure at the zoo opens at nine."
    for text in (long_word, japanese, short):
        assert w.post("/v1/memories", json={"content": text[:20_000], "subject": "zoo"}).status_code == 201
    for query in ("zebra", "東京のオフィス"):
        ctx = w.post("/v1/context", json={"query": query, "budget_words": 10}).json()
        assert len(ctx["text"]) < 200 and ctx["tokens"] == tokens(ctx["text"]) <= ctx["budget_tokens"] == 40
        assert ctx["words"] <= 10
    by_tokens = w.post("/v1/context", json={"query": "zebra enclosure", "budget_tokens": 60}).json()
    assert by_tokens.get("budget_words") is None and by_tokens["budget_tokens"] == 60
    assert 0 < tokens(by_tokens["text"]) <= 60 and "zoo opens at nine" in by_tokens["text"]
    both = w.post("/v1/context", json={"query": "zebra", "budget_words": 10, "budget_tokens": 12}).json()
    assert tokens(both["text"]) <= 12
    bad = w.post("/v1/context", json={"query": "zebra", "budget_tokens": 5})
    assert bad.status_code == 422 and "budget_tokens" in bad.text


def test_as_of_at_the_calendar_edge_answers(g, server):
    """Issue 59 item 7: a question's time said at the first or last day of the calendar answered 500
    (OverflowError in event time) on retrieve and context."""
    w = server.client(g.create_token("writer-e", ["edge"], "writer")[0])
    r = w.post("/v1/memories", json={"content": "Yesterday I planted a tree.", "subject": "trees",
                                     "created_at": "2023-05-08T10:00:00+00:00"})
    assert r.status_code == 201, r.text
    for as_of, question in (("0001-01-01", "what did I do yesterday?"), ("9999-12-31", "what will I do next year?"),
                            ("0001-01-03", "what happened last week?"), ("9999-12-30", "and in 2 weeks?")):
        for route in ("/v1/retrieve", "/v1/context"):
            r = w.post(route, json={"query": question, "as_of": as_of, "when": "auto"})
            assert r.status_code == 200, (route, as_of, r.text)
