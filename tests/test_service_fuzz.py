"""Property tests of the HTTP API (issue 16, hypothesis): arbitrary unicode, huge strings, nested
junk, Cypher fragments and null bytes are stored verbatim or refused with a message, never
executed, never a 500; and a refused request writes nothing (the store's counts are unchanged).
A bounded number of examples here; bench/service/fuzz.py runs thousands."""

from __future__ import annotations

import pytest
from fuzz_requests import Fuzz, cases, invariants, seed
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service_helpers import Server, counts
from synthesis_helpers import NOW

from graphcons.core.config import Config, ServiceConfig

CYPHER = ["'}) DETACH DELETE n //", "\") MATCH (n) DETACH DELETE n RETURN 1 //", "$content", "${injection}",
          "MATCH (m:Memory) SET m.status = 'archived'", "\\u0000", "\x00", "'; CALL dbms.shutdown(); //"]
FIELDS = ["content", "title", "kind", "subject", "namespace", "scope", "origin", "session", "importance",
          "confidence", "status", "id", "created_at", "links", "source", "embedding"]

texts = st.one_of(st.text(max_size=60), st.sampled_from(CYPHER),
                  st.builds(lambda a, b: a + b, st.sampled_from(CYPHER), st.text(max_size=20)),
                  st.sampled_from(["x" * 25_000, "é" * 21_000, "", "   ", "\x00" * 10]))
junk = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                    | texts, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                                        max_size=3), max_leaves=8)
payloads = st.one_of(junk, st.dictionaries(st.sampled_from(FIELDS), junk, max_size=6),
                     st.fixed_dictionaries({"content": texts}, optional={f: junk for f in FIELDS[1:]}))
FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module")
def server(neo4j_settings, embedder):
    with Server(Config(neo4j=neo4j_settings, service=ServiceConfig(max_body_bytes=64 * 1024)), embedder) as srv:
        yield srv


@pytest.fixture
def writer(g, server):
    token, _ = g.create_token("fuzzer", ["team"], "writer")
    g.add({"content": "An existing memory to link to.", "id": "m-existing", "namespace": "team"})
    return server.client(token)


@FUZZ
@given(payload=payloads)
def test_bad_input_writes_nothing_and_good_input_is_stored_verbatim(g, writer, payload):
    before = counts(g)
    r = writer.post("/v1/memories", json=payload)
    assert r.status_code in (200, 201, 400, 403, 413, 422), r.text
    if r.status_code >= 400:
        data = r.json()
        assert data["message"] and "Traceback" not in r.text
        assert counts(g) == before
        return
    stored = writer.get(f"/v1/memories/{r.json()['id']}").json()
    assert stored["content"] == payload["content"].strip()  # verbatim (admission strips outer whitespace)
    assert stored["source"] == "api:fuzzer"
    after = counts(g)
    assert after.get("Memory", 0) - before.get("Memory", 0) == (1 if r.status_code == 201 else 0)


@FUZZ
@given(query=texts, k=st.one_of(st.integers(-5, 2000), junk))
def test_retrieve_and_search_never_crash_and_readers_write_nothing(g, server, query, k):
    token, _ = g.create_token("reader-fuzz", ["team"], "reader")
    c = server.client(token)
    before = counts(g)
    r = c.post("/v1/retrieve", json={"query": query, "k": k})
    # 413: a 25k-character query with a junk k of 21k "é" is over the server's 64 KB body limit
    assert r.status_code in (200, 400, 413, 422), r.text
    if r.status_code >= 400:
        assert r.json()["message"] and "Traceback" not in r.text
    s = c.get("/v1/search", params={"text": query[:3000], "k": k if isinstance(k, int) else "x"})
    assert s.status_code in (200, 400, 422), s.text
    after = counts(g)
    after.pop("ApiToken", None), before.pop("ApiToken", None)
    assert after == before


def test_requests_over_every_route_and_role_reach_the_store(g, server):
    """Issue 30: mostly valid requests (real ids, every route, every role) and near-misses; no 500,
    no write from a refused request, the store's invariants hold afterwards. bench/service/fuzz.py runs 10,000."""
    assert seed(g, "team", NOW) >= 1
    fuzz = Fuzz(g, server, "team")

    # derandomize: the same cases on every run, so the route coverage below cannot flake (it did: 13 routes once)
    @settings(max_examples=400, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(case=cases())
    def one(case):
        fuzz.run(case)

    one()
    report = fuzz.report()
    assert report["errors_500"] == 0, report["examples_500"]
    assert report["writes_by_refused_requests"] == 0, report["examples_refused_writes"]
    assert report["answered_2xx_share"] >= 0.5, report["statuses"]
    assert len(report["by_route"]) >= 15, report["by_route"]  # the derandomized 400 cases reach most routes
    assert invariants(g) == dict.fromkeys(invariants(g), 0)
