"""Issue 59 (transports): input depth and size bounded at the door on every transport, no failed
request writes, PUT answers under its own key, link targets qualified like ids, a body too deep is 422 `body`."""

from __future__ import annotations

import json

import pytest
from service_helpers import Server, counts

from graphcons.core.config import Config, ServiceConfig
from graphcons.core.errors import ValidationError


def nested(depth: int) -> dict:
    value: dict = {"leaf": 1}
    for _ in range(depth - 1):
        value = {"a": value}
    return value


@pytest.fixture(scope="module")
def server(neo4j_settings, embedder):
    with Server(Config(neo4j=neo4j_settings, service=ServiceConfig()), embedder) as srv:
        yield srv


@pytest.fixture
def writer(g, server):
    return server.client(g.create_token("writer-1", ["team"], "writer")[0])


@pytest.mark.parametrize("depth", [300, 900])
def test_deep_metadata_is_refused_at_the_door_and_reads_keep_working(g, server, writer, depth):
    ok = writer.post("/v1/memories", json={"content": "Checkout deploys on Tuesdays.", "metadata": {"a": {"b": 1}}})
    assert ok.status_code == 201, ok.text
    mid = ok.json()["id"]
    before = counts(g)
    bad = {"content": "A memory whose metadata nests too deep.", "metadata": nested(depth)}
    for method, path, body in (("POST", "/v1/memories", bad), ("POST", "/v1/memories/batch", {"memories": [bad]}),
                               ("PUT", "/v1/memories/deep-1", bad),
                               ("PATCH", f"/v1/memories/{mid}", {"metadata": nested(depth)})):
        r = writer.request(method, path, json=body)
        assert r.status_code == 422, (path, r.status_code, r.text[:300])
        assert r.json()["field"].endswith("metadata"), r.json()
        assert "deep" in r.json()["message"]
    assert counts(g) == before  # nothing written by any of them
    assert writer.get(f"/v1/memories/{mid}").status_code == 200
    assert writer.get("/v1/memories").status_code == 200
    assert writer.post("/v1/retrieve", json={"query": "checkout deploys"}).status_code == 200


def test_deep_metadata_is_refused_by_the_python_api(g):
    with pytest.raises(ValidationError) as err:
        g.add({"content": "Deep metadata through the facade.", "metadata": nested(300)})
    assert err.value.field == "metadata" and "deep" in err.value.problem
    a = g.add({"content": "A plain memory to edit."})
    with pytest.raises(ValidationError) as err:
        g.edit(a.id, source="user", metadata=nested(300))
    assert err.value.field == "metadata"
    assert g.get(a.id).version == 1


def test_an_edit_of_a_memory_holding_deep_metadata_from_before_the_limit_writes_nothing(g, server, writer):
    """A memory stored before the door bounded metadata (written here straight into the node) keeps it;
    a PATCH of its content alone is refused naming `metadata` and saves no version (its answer could not
    be serialised); a PATCH that replaces the metadata is the way out."""
    mid = writer.post("/v1/memories", json={"content": "Checkout deploys on Tuesdays."}).json()["id"]
    g.db.run_text("MATCH (m:Memory {id: $id}) SET m.metadata = $meta", id=mid, meta=json.dumps(nested(300)))
    before = counts(g)
    r = writer.patch(f"/v1/memories/{mid}", json={"content": "Checkout deploys on Wednesdays."})
    assert r.status_code == 400 and r.json()["field"] == "metadata" and "deep" in r.json()["message"], r.text[:300]
    version = g.db.run_text("MATCH (m:Memory {id: $id}) RETURN m.version AS v", id=mid)[0]["v"]
    assert counts(g) == before and version == 1
    fixed = writer.patch(f"/v1/memories/{mid}", json={"content": "Checkout deploys on Wednesdays.",
                                                      "metadata": {"team": "payments"}})
    assert fixed.status_code == 200, fixed.text[:300]
    assert g.get(mid).version == 2 and g.get(mid).metadata == {"team": "payments"}


def test_a_body_nested_a_thousand_deep_is_422_body(server, writer):
    text = '{"content": "x", "metadata": ' + '{"a": ' * 1000 + "1" + "}" * 1000 + "}"
    r = writer.post("/v1/memories", content=text, headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.json()["field"] == "body", r.text[:300]


def test_a_retrieve_that_cannot_answer_records_no_access(g, server, writer):
    """A memory stored before the door bounded metadata (set here by Cypher) cannot be serialised:
    the retrieve fails, and its use was not recorded first (access_count stays)."""
    mid = writer.post("/v1/memories", json={"content": "Kafka consumers lag behind on Mondays."}).json()["id"]
    deep = json.dumps(nested(900))
    g.db.run_text("MATCH (m:Memory {id: $id}) SET m.metadata = $meta", id=mid, meta=deep)
    before = counts(g)
    r = writer.post("/v1/retrieve", json={"query": "kafka consumers lag", "k": 1})
    assert r.status_code == 500, r.text[:200]
    assert counts(g) == before


def test_deep_metadata_is_refused_by_import_and_the_langgraph_store(g, neo4j_settings, tmp_path):
    from conftest import graphcons_cli

    from graphcons.integrations.langgraph import GraphconsStore

    # the package of this checkout, whatever the shared environment's editable install points at
    cli_run = graphcons_cli(neo4j_settings, tmp_path)  # this checkout first on PYTHONPATH

    path = tmp_path / "deep.jsonl"
    path.write_text(json.dumps({"content": "Deep metadata in an import line.", "metadata": nested(300)}) + "\n"
                    + json.dumps({"content": "A plain line beside it."}) + "\n")
    out = cli_run("import", str(path), "--json")
    assert out.returncode == 2, out.stderr
    report = json.loads(out.stdout)
    assert "metadata" in json.dumps(report["errors"]) and "deep" in json.dumps(report["errors"]), report
    with pytest.raises(ValueError, match="deep"):
        GraphconsStore(g).put(("team", "notes"), "k-deep", {"text": "a deep value", "nest": nested(300)})
    assert [m.content for m in g.memories("default")] == ["A plain line beside it."]


def test_a_put_stores_and_answers_under_its_own_key(g, server, writer):
    """Before: PUT /v1/memories/put-b with put-a's content answered {"id": "team:put-a", "created":
    false} (evidence added to put-a), and the LangGraph store's put then could not find its key."""
    a = writer.put("/v1/memories/put-a", json={"content": "The same words under two keys."})
    assert a.status_code == 201 and a.json()["id"] == "team:put-a", a.text
    b = writer.put("/v1/memories/put-b", json={"content": "The same words under two keys."})
    assert b.status_code == 201 and b.json() == {**b.json(), "id": "team:put-b", "created": True}, b.text
    assert writer.get("/v1/memories/team:put-b").json()["content"] == "The same words under two keys."
    assert writer.get("/v1/memories/team:put-a").json()["evidence_count"] == 1


def test_the_langgraph_store_finds_a_key_put_with_another_keys_value(g):
    from graphcons.integrations.langgraph import GraphconsStore

    store = GraphconsStore(g)
    store.put(("team", "notes"), "a", {"text": "Deploys are frozen on Fridays."})
    store.put(("team", "notes"), "b", {"text": "Deploys are frozen on Fridays."})
    assert store.get(("team", "notes"), "b").value == {"text": "Deploys are frozen on Fridays."}


def test_link_targets_are_qualified_like_ids(g, server, writer):
    """Before: {"target": "inc-104"} answered 400 although the caller's inc-104 (stored team:inc-104) exists."""
    assert writer.post("/v1/memories", json={"id": "inc-104", "content": "Incident 104: checkout 503s."}
                       ).status_code == 201
    r = writer.post("/v1/memories", json={"content": "Incident 105 followed 104.", "links": [{"target": "inc-104"}]})
    assert r.status_code == 201 and r.json()["linked"] == 1, r.text
    r = writer.post("/v1/memories/batch", json={"memories": [{"content": "Incident 106 too.",
                                                              "links": [{"target": "inc-104"}]}]})
    assert r.status_code == 200 and r.json()["results"][0]["linked"] == 1, r.text
    mid = writer.post("/v1/memories", json={"content": "Incident 107 stands alone."}).json()["id"]
    r = writer.post(f"/v1/memories/{mid}/links", json={"target": "inc-104"})
    assert r.status_code == 200 and r.json() == {"linked": 1}, r.text
    assert writer.post("/v1/memories", json={"content": "Links to nothing.", "links": [{"target": "inc-999"}]}
                       ).status_code == 400
