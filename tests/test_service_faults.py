"""The HTTP service under bad input and hostile callers (issue 30): atomic batches, one input
policy on the CLI and HTTP paths, imports of any bytes, explicit ids that reveal no other
namespace, and no token in the access log. Each test failed before its fix."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time

import httpx
import pytest
from service_helpers import Server, counts, free_port

from graphcons.core.config import Config, ServiceConfig
from graphcons.core.errors import ValidationError


@pytest.fixture(scope="module")
def server(neo4j_settings, embedder):
    cfg = Config(neo4j=neo4j_settings, service=ServiceConfig(max_batch=10, max_body_bytes=64 * 1024))
    with Server(cfg, embedder) as srv:
        yield srv


@pytest.fixture
def writers(g, server):
    """Writers of two tenants, alpha and beta."""
    return {ns: server.client(g.create_token(f"w-{ns}", [ns], "writer")[0]) for ns in ("alpha", "beta")}


@pytest.fixture
def cli(neo4j_settings, tmp_path):
    from conftest import graphcons_cli

    return graphcons_cli(neo4j_settings, tmp_path, timeout=180)


def problem(r: httpx.Response) -> tuple[int, str | None]:
    assert "Traceback" not in r.text and r.json()["message"], r.text
    return r.status_code, r.json()["field"]


def test_a_batch_is_all_or_nothing(g, writers):
    w = writers["alpha"]
    taken = w.post("/v1/memories", json={"content": "The VPN drops every night at 02:00.", "id": "vpn"}).json()["id"]
    before = counts(g)
    r = w.post("/v1/memories/batch", json={"memories": [{"content": "Backups moved to the new bucket."},
                                                         {"content": "A different text.", "id": "vpn"}]})
    assert problem(r) == (400, "memories[1].id")
    assert "already exists" in r.json()["message"]
    twins = [{"content": "First text of the twins.", "id": "twin"}, {"content": "Second text.", "id": "twin"}]
    assert problem(w.post("/v1/memories/batch", json={"memories": twins})) == (400, "memories[1].id")
    unknown = [{"content": "Fine."}, {"content": "Linked to nothing.", "links": [{"target": "nope"}]}]
    assert problem(w.post("/v1/memories/batch", json={"memories": unknown})) == (400, "memories[1].links.target")
    assert counts(g) == before  # nothing of any refused batch was written
    ok = w.post("/v1/memories/batch", json={"memories": [{"content": "Backups moved to the new bucket."},
                                                          {"content": "Links to the VPN note.",
                                                           "links": [{"target": taken}]}]})
    assert ok.status_code == 200 and [x["created"] for x in ok.json()["results"]] == [True, True]


def test_explicit_ids_are_scoped_per_namespace(g, writers):
    a, b = writers["alpha"], writers["beta"]
    ra = a.post("/v1/memories", json={"content": "Deploys freeze on Fridays.", "id": "note-1"})
    rb = b.post("/v1/memories", json={"content": "Deploys freeze on Fridays.", "id": "note-1"})
    assert (ra.status_code, ra.json()["id"]) == (201, "alpha:note-1")
    assert (rb.status_code, rb.json()["id"]) == (201, "beta:note-1")  # alpha's id tells beta nothing
    # the returned id can be sent again: the same memory (evidence), not a new prefix
    again = a.post("/v1/memories", json={"content": "Deploys freeze on Fridays.", "id": "alpha:note-1"})
    assert (again.status_code, again.json()["id"]) == (200, "alpha:note-1")
    # a taken id inside one's own namespace is still refused, naming the field
    assert problem(a.post("/v1/memories", json={"content": "Other text.", "id": "note-1"})) == (400, "id")
    # another namespace's memory answers exactly like a missing one
    hidden, missing = b.get("/v1/memories/alpha:note-1"), b.get("/v1/memories/alpha:note-2")
    assert hidden.status_code == missing.status_code == 404
    assert hidden.json()["message"].replace("note-1", "X") == missing.json()["message"].replace("note-2", "X")
    assert g.get("alpha:note-1").namespace == "alpha" and g.get("beta:note-1").namespace == "beta"


def test_one_input_policy_over_http(g, writers):
    w = writers["alpha"]
    mid = w.post("/v1/memories", json={"content": "Cache warmed after deploy."}).json()["id"]
    before = counts(g)
    cases = [
        ("post", "/v1/memories", {"content": "a\x00b"}, "content"),
        ("post", "/v1/memories", {"content": "ok", "title": "t\x00"}, "title"),
        ("post", "/v1/memories", {"content": "ok", "subject": "s\x00"}, "subject"),
        ("post", "/v1/memories", {"content": "ok", "session": "s\x00"}, "session"),
        ("post", "/v1/memories", {"content": "ok", "session": "   "}, "session"),
        ("post", "/v1/memories", {"content": "ok", "id": "   "}, "id"),
        ("post", "/v1/memories", {"content": "ok", "created_at": "0001-01-01T00:00:00+00:00"}, "created_at"),
        ("post", "/v1/memories", {"content": "ok", "created_at": "9999-01-01T00:00:00+00:00"}, "created_at"),
        ("post", "/v1/memories/batch", {"memories": [{"content": "ok"}, {"content": "\x00"}]}, "memories[1].content"),
        ("patch", f"/v1/memories/{mid}", {"content": "edited\x00"}, "content"),
        ("post", "/v1/access", {"session": "   ", "ids": [mid]}, "session"),
        ("post", "/v1/access", {"session": "s\x00", "ids": [mid]}, "session"),
        ("post", "/v1/access", {"session": "s1", "ids": [mid, ""]}, "ids[1]"),
        ("post", "/v1/retrieve", {"query": "cache", "session": " "}, "session"),
    ]
    for method, path, payload, field in cases:
        r = getattr(w, method)(path, json=payload)
        assert problem(r) == (400, field), (payload, r.text)
    assert counts(g) == before
    ok = w.post("/v1/memories", json={"content": "Dated memory.", "created_at": "1999-12-31T23:00:00+00:00"})
    assert ok.status_code == 201


def test_one_input_policy_on_the_cli(g, cli, tmp_path):
    mid = g.add({"content": "Queue latency doubled after the upgrade."}).id
    before = counts(g)
    for session in ("   ", ""):
        out = cli("access", mid, "--session", session)
        assert out.returncode == 2 and "session" in out.stderr, out.stderr
    out = cli("access", "", "--session", "s1")
    assert out.returncode == 2 and "ids[0]" in out.stderr, out.stderr
    out = cli("add", "fine", "--id", "   ")
    assert out.returncode == 2 and "id" in out.stderr
    # the Python API under the CLI: the same rules, before anything is looked up
    for call, field in ((lambda: g.reject("p-none", "why\x00"), "reason"),
                        (lambda: g.add({"content": "ok", "source": "a\x00"}), "source"),
                        (lambda: g.access("s1", ["  "]), "ids[0]")):
        with pytest.raises(ValidationError) as exc:
            call()
        assert exc.value.field == field
    assert counts(g) == before


def test_import_reports_every_bad_line_for_any_bytes(g, cli, tmp_path):
    good = [json.dumps({"content": f"Disk {n} filled up on db-{n}.", "subject": "db"}).encode() for n in range(3)]
    lines = [
        good[0],
        b'{"content": "caf\xe9 \xff\xfe"}',  # latin-1 / garbage bytes: not UTF-8
        b"[" * 100_000 + b"]" * 100_000,  # deeper than the JSON parser goes
        json.dumps({"content": "NUL \x00 inside"}).encode(),
        json.dumps({"content": "year one", "created_at": "0001-01-01T00:00:00+00:00"}).encode(),
        b'{"content": "lone surrogate \\ud800"}',
        b'{"content": "big", "importance": ' + b"1" * 5000 + b"}",
        b"\x00\x00\x00",
        b"42",
        json.dumps({"content": "bad link", "links": [{"target": "x", "weight": 1}]}).encode(),
        good[1],
        b"\xef\xbb\xbf" + good[2],  # a byte-order mark in the middle of a file is not JSON
    ]
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    out = cli("import", str(path), "--json")
    assert out.returncode == 2, out.stderr
    report = json.loads(out.stdout)
    assert report["admitted"] == 2 and report["duplicates"] == 0
    errors = {e["line"]: e["error"] for e in report["errors"]}
    assert sorted(errors) == [2, 3, 4, 5, 6, 7, 8, 9, 10, 12]
    assert "UTF-8" in errors[2] and "deeply" in errors[3] and errors[4].startswith("content")
    assert errors[5].startswith("created_at") and errors[6].startswith("content")
    assert errors[10].startswith("links")
    stored = {m["content"] for m in g.db.run_text("MATCH (m:Memory) RETURN m.content AS content")}
    assert stored == {"Disk 0 filled up on db-0.", "Disk 1 filled up on db-1."}


def test_tokens_never_reach_the_access_log(g, cli, tmp_path):
    token, _ = g.create_token("logged", ["team"], "reader")
    port = free_port()
    log = tmp_path / "serve.log"
    with open(log, "wb") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "graphcons", "serve", "--port", str(port)], env=cli.env,
                                cwd=tmp_path, stdout=sink, stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 120
            while True:
                try:
                    if httpx.get(f"{url}/healthz", timeout=5).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                assert time.monotonic() < deadline and proc.poll() is None, log.read_text()
                time.sleep(0.3)
            auth = {"Authorization": f"Bearer {token}"}
            assert httpx.get(f"{url}/v1/search", params={"text": "x", "k": 3, "token": token},
                             headers=auth).status_code == 200
            assert httpx.get(f"{url}/v1/proposals", params={"access_token": token, "status": "pending"}).status_code == 401
            assert httpx.get(f"{url}/v1/memories/{token}", headers=auth).status_code == 404
        finally:
            proc.terminate()
            proc.wait(timeout=60)
    text = log.read_text()
    assert "/v1/search?text=***&k=3&token=***" in text and "/v1/proposals?access_token=***&status=pending" in text
    assert token not in text and token[4:] not in text


# -- issue 41 ------------------------------------------------------------------------------------

BLANKS = ["\u200b\u200b", "   ", "\u2060 \ufeff", "\u200e\t\u200f"]  # zero-width, word joiner, BOM, direction marks


def test_text_blank_after_removing_invisible_characters_is_blank_on_every_path(g, writers, cli, tmp_path):
    """Item 5 (and 7's "content of spaces"): only whitespace and format characters (Unicode Cf) is
    blank: refused naming the field, with the word "blank", by the Python API, HTTP, the CLI and import."""
    w = writers["alpha"]
    mid = w.post("/v1/memories", json={"content": "The cache is warmed after deploys."}).json()["id"]
    before = counts(g)
    for text in BLANKS:
        for payload, field in (({"content": text}, "content"), ({"content": "ok", "subject": text}, "subject"),
                               ({"content": "ok", "session": text}, "session")):
            r = w.post("/v1/memories", json=payload)
            assert problem(r) == (400, field) and "blank" in r.json()["message"], (payload, r.text)
        r = w.patch(f"/v1/memories/{mid}", json={"content": text})
        assert problem(r) == (400, "content") and "blank" in r.json()["message"], r.text
        r = w.post("/v1/memories/batch", json={"memories": [{"content": "fine"}, {"content": text}]})
        assert problem(r) == (400, "memories[1].content"), r.text
        with pytest.raises(ValidationError) as exc:
            g.add({"content": text})
        assert exc.value.field == "content" and "blank" in exc.value.problem
    out = cli("add", "\u200b\u200b")
    assert out.returncode == 2 and "content" in out.stderr and "blank" in out.stderr, out.stderr
    path = tmp_path / "blank.jsonl"
    path.write_text(json.dumps({"content": "\u200b\u200b"}) + "\n")
    out = cli("import", str(path), "--json")
    assert json.loads(out.stdout)["errors"][0]["error"].startswith("content: is blank"), out.stdout
    assert counts(g) == before
    # visible text around invisible characters is kept verbatim
    kept = w.post("/v1/memories", json={"content": "\u200bwarm the cache\u200b"})
    assert kept.status_code == 201 and g.get(kept.json()["id"]).content == "\u200bwarm the cache\u200b"


def test_errors_name_the_field_and_say_what_is_wrong(g, writers):
    """Item 7: a lone surrogate is 400 bad_input naming the field (docs/HTTP-POLICY.md), a raw NUL byte
    in the body names the field (not the byte offset "15"), twins in a batch are called twins."""
    w = writers["alpha"]
    before = counts(g)
    raw = {"Content-Type": "application/json"}
    cases = [
        (b'{"content": "lone surrogate \\ud800"}', "content", "/v1/memories"),
        (b'{"content": "ok", "title": "\\udfff"}', "title", "/v1/memories"),
        (b'{"memories": [{"content": "ok"}, {"content": "x", "links": [{"target": "\\ud800"}]}]}',
         "memories[1].links[0].target", "/v1/memories/batch"),
        (b'{"content": "a\x00b"}', "content", "/v1/memories"),
        (b'{"memories": [{"content": "ok"}, {"content": "a\x00b"}]}', "memories[1].content", "/v1/memories/batch"),
    ]
    for body, field, path in cases:
        r = w.post(path, content=body, headers=raw)
        assert problem(r) == (400, field) and r.json()["error"] == "bad_input", (body, r.text)
    r = w.post("/v1/memories", content=b'{"content": "line\nbreak"}', headers=raw)
    assert problem(r) == (422, "content") and "control character" in r.json()["message"], r.text
    r = w.post("/v1/memories", content=b'{"content": ', headers=raw)
    assert problem(r) == (422, "body") and "not valid JSON" in r.json()["message"], r.text
    twins = [{"content": "First text of the twins.", "id": "twin"}, {"content": "Second text.", "id": "twin"}]
    r = w.post("/v1/memories/batch", json={"memories": twins})
    assert problem(r) == (400, "memories[1].id")
    assert "shares the id" in r.json()["message"] and "item 0" in r.json()["message"]
    assert "already exists" not in r.json()["message"]
    assert counts(g) == before


# Routes without a token: /healthz says nothing about any namespace; /metrics is open only on a
# loopback bind (as here) and needs an admin token elsewhere (tests/test_observability.py)
PUBLIC = {"/healthz", "/metrics"}
SAMPLES = {"content": "A memory for another tenant.", "query": "anything", "subject": "user-ana", "job": "scan"}


def test_a_foreign_namespace_is_403_on_every_route(g, server):
    """Item 4: one rule for every route, walked from the app's route table (a new route is covered
    without touching this test): a `namespace` query parameter the token lacks is 403 naming the field,
    whether the route reads it or not, and so is a `namespace` in a request body. Before, /v1/proposals
    answered 200 [] and /v1/conflicts ignored it and answered A's conflicts."""
    c = server.client(g.create_token("admin-alpha", ["alpha"], "admin")[0])  # every role, one namespace
    spec = server.app.openapi()  # the route table as clients see it
    before = counts(g)
    walked, with_body = [], []
    for route, operations in spec["paths"].items():
        path = re.sub(r"\{(\w+)\}", lambda mt: SAMPLES.get(mt.group(1), "x"), route)
        for method, op in operations.items():
            r = c.request(method, path, params={"namespace": "beta"})
            if route in PUBLIC:
                assert r.status_code == 200, (method, route, r.text)
                continue
            assert problem(r) == (403, "namespace"), (method, route, r.text)
            assert "beta" in r.json()["message"]
            walked.append(f"{method.upper()} {route}")
            ref = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {}).get("$ref")
            body = spec["components"]["schemas"][ref.rsplit("/", 1)[1]] if ref else {}
            if "namespace" in body.get("properties", {}):
                required = {name: SAMPLES[name] for name in body.get("required", [])}
                r = c.request(method, path, json={**required, "namespace": "beta"})
                assert problem(r) == (403, "namespace"), (method, route, r.text)
                with_body.append(f"{method.upper()} {route}")
    assert {"GET /v1/proposals", "GET /v1/conflicts", "GET /v1/search", "GET /v1/clusters"} <= set(walked)
    assert {"POST /v1/memories", "POST /v1/retrieve", "POST /v1/reflect"} <= set(with_body)
    assert len(walked) >= 30
    assert counts(g) == before
    own = c.get("/v1/proposals", params={"namespace": "alpha"})
    assert own.status_code == 200 and own.json() == []


def test_the_same_bytes_get_the_same_words_over_http_and_import(g, writers, cli, tmp_path):
    """Issue 50 item 11: an invalid UTF-8 byte in a body was 400 with no field and FastAPI's text
    (docs/HTTP-POLICY.md: 422 `body` with the reason and position); import said "at at column 26"
    for a raw NUL and "not valid UTF-8" where HTTP named the field holding an encoded lone surrogate."""
    lines = [b'{"subject": "db", "content": "raw NUL \x00 here"}',
             b'{"subject": "db", "content": "encoded surrogate \xed\xa0\x80 here"}',
             b'{"subject": "db", "content": "caf\xff here"}']
    path = tmp_path / "bytes.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    before = counts(g)
    report = json.loads(cli("import", str(path), "--json").stdout)
    said = {e["line"]: e["error"] for e in report["errors"]}
    assert said == {1: "content: must not contain a NUL byte (\\u0000)",
                    2: "content: is not valid Unicode (a lone surrogate)",
                    3: "not valid UTF-8 (invalid start byte at byte 34)"}
    raw = {"Content-Type": "application/json"}
    answers = [writers["alpha"].post("/v1/memories", content=line, headers=raw) for line in lines]
    assert [problem(r) for r in answers] == [(400, "content"), (400, "content"), (422, "body")]
    assert [r.json()["message"] for r in answers] == [said[1], said[2], f"body: {said[3]}"]
    assert counts(g) == before


def test_k_has_one_bound_stated_in_the_schema(server, writers):
    """Issue 50 item 11: the schema allowed k up to 1000 while the code refused 101 with another
    status and text. Now [service] max_k is the schema's maximum and the one refusal."""
    spec = server.client().get("/openapi.json").json()
    assert spec["components"]["schemas"]["RetrieveQuery"]["properties"]["k"]["maximum"] == 100
    assert [p["schema"]["maximum"] for p in spec["paths"]["/v1/search"]["get"]["parameters"] if p["name"] == "k"] == [100]
    w = writers["alpha"]
    answers = [w.post("/v1/retrieve", json={"query": "disk", "k": k}) for k in (101, 1001)]
    answers += [w.get("/v1/search", params={"text": "disk", "k": k}) for k in (101, 1001)]
    assert [problem(r) for r in answers] == [(422, "k")] * 4
    assert {r.json()["message"] for r in answers} == {"k: Input should be less than or equal to 100 ([service] max_k)"}
    assert w.post("/v1/retrieve", json={"query": "disk", "k": 100}).status_code == 200


def test_a_missing_profile_points_an_http_client_at_the_reflect_route(writers):
    """Issue 50 item 11: the 404 told an HTTP client to run `graphcons reflect`."""
    for path in ("/v1/profiles/user-bo", "/v1/profiles/user-bo/history"):
        r = writers["alpha"].get(path)
        assert problem(r) == (404, None)
        assert 'POST /v1/reflect with {"subject": "user-bo"}' in r.json()["message"], r.text
        assert "graphcons reflect" not in r.json()["message"]
