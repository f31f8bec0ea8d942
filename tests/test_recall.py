"""Recall's typed hit (issue 46) and the queries it refuses (issue 50 item 9), as a caller sees them:
the Python API, the HTTP API and the MCP server."""

from __future__ import annotations

import json

import pytest
from service_helpers import Server, counts

from graphcons.core.errors import ValidationError
from graphcons.recall.hits import Hit, InsightMode, Member, Mode

INVISIBLE = ["\u200b", "\u200b\u200d \ufeff", "\u2060\t"]


def _incidents(g):
    for i, text in enumerate(["Checkout returned 503 after deploy 4.1.", "Checkout returned 503 after deploy 4.2.",
                              "Checkout returned 503 after deploy 4.3.", "The payments pool ran dry after deploy 7."]):
        g.add({"id": f"c-{i}", "content": text, "subject": "checkout", "namespace": "team"})


def test_a_hit_is_typed_and_read_by_attribute(g):
    _incidents(g)
    hits = g.retrieve("checkout 503 after deploy", k=3, namespace="team", record=False)
    assert hits and all(isinstance(h, Hit) for h in hits)
    h = hits[0]
    wire = h.to_dict()
    assert set(wire) >= {"memory", "score", "vector", "keyword", "superseded"} and "members" not in wire
    assert wire["memory"] is h.memory and wire["score"] == h.score and h.members is None
    assert json.loads(json.dumps({k: v for k, v in wire.items() if k != "memory"}))  # the rest is plain JSON
    with pytest.raises(TypeError):  # issue 60: the dict-style reading is gone; `to_dict` is the one shape
        h["memory"]
    assert not hasattr(h, "get") and not hasattr(h, "keys")
    with pytest.raises(AttributeError):  # frozen: a caller cannot reorder or rescore what retrieve ranked
        h.score = 2.0
    # every mode and insight mode is an enum value, and nothing else is accepted
    for mode in Mode:
        assert g.retrieve("checkout", k=2, namespace="team", mode=mode.value, record=False)
    for insights in InsightMode:
        assert g.retrieve("checkout", k=2, namespace="team", insights=insights.value, record=False) is not None
    with pytest.raises(ValidationError) as err:
        g.retrieve("checkout", k=2, mode="fuzzy")
    assert err.value.field == "mode" and "hybrid" in str(err.value)


def test_an_insight_hit_carries_typed_members():
    from graphcons.core.memory import Memory
    m = Memory.model_construct(id="a", content="x")
    hit = Hit(m, 1.0, members=[Member(m, 0.5)])
    assert hit.members[0].relevance == 0.5
    assert hit.to_dict()["members"] == [{"memory": m, "relevance": 0.5}]


@pytest.mark.parametrize("query", INVISIBLE)
def test_an_invisible_query_is_refused_by_the_facade(g, query):
    _incidents(g)
    before = counts(g)
    for call in (lambda: g.retrieve(query, k=3), lambda: g.context(query, 100), lambda: g.search(query)):
        with pytest.raises(ValidationError) as err:
            call()
        assert err.value.field in ("query", "text") and "visible" in str(err.value)
    assert counts(g) == before  # no co-access recorded for a refused query


def test_an_invisible_query_is_refused_naming_the_field_over_http(g, config, embedder):
    _incidents(g)
    token, _ = g.create_token("writer-1", ["team"], "writer")
    before = counts(g)
    with Server(config, embedder) as srv, srv.client(token) as c:
        for path, body in (("/v1/retrieve", {"query": "\u200b", "k": 3}), ("/v1/context", {"query": "\u200b"})):
            r = c.post(path, json=body)
            assert r.status_code == 400, r.text  # refused by the input policy (docs/HTTP-POLICY.md), naming the field
            assert r.json()["field"] == "query" and "visible" in r.json()["message"]
        r = c.get("/v1/search", params={"text": "\u200b"})
        assert r.status_code == 400 and r.json()["field"] == "text"
    assert counts(g) == before


def test_a_context_line_names_the_day_a_relative_expression_means(g):
    """Issue 47: "last Saturday", said on 25 May 2023, is shown with the day it names; the budget holds."""
    g.add({"id": "race", "content": "Melanie ran a charity race last Saturday.", "subject": "melanie",
           "namespace": "team", "created_at": "2023-05-25T14:00:00+00:00"})
    g.add({"id": "plan", "content": "Melanie plans a camping trip with her kids.", "subject": "melanie",
           "namespace": "team", "created_at": "2023-05-25T14:05:00+00:00"})
    ctx = g.context("When did Melanie run the charity race?", 30, namespace="team", record=False)
    line = next(x for x in ctx.lines if x.ids == ["race"])
    assert "last Saturday [20 May 2023]" in line.text and line.date == "25 May 2023"
    assert ctx.text.startswith("25 May 2023:\n")  # one header for the day, not a date on every line
    assert ctx.words <= 30


def test_a_long_memory_enters_a_short_context_as_a_marked_excerpt(g):
    """Issue 51: a chat turn longer than what is left of the budget shows its sentences that share the
    query's words, with its id and date, marked; never over budget."""
    filler = " ".join(f"Sentence {i} is about the weather and nothing else." for i in range(8))
    g.add({"id": "turn", "content": f"{filler} I keep my old sneakers in a shoe rack in my closet. {filler}",
           "subject": "user", "namespace": "team", "created_at": "2023-05-26T13:05:00+00:00"})
    ctx = g.context("Where do I keep my old sneakers?", 30, namespace="team", record=False)
    assert ctx.words <= 30
    [line] = [x for x in ctx.lines if x.ids == ["turn"]]
    assert line.excerpt is True and line.text.startswith("(excerpt)") and line.date == "26 May 2023"
    assert ctx.text.startswith("26 May 2023:\n")
    assert "old sneakers in a shoe rack in my closet" in line.text and "weather" not in line.text
    ref = {i: r for r, i in ctx.refs.items()}["turn"]
    assert line.text.endswith(f"({ref})")  # cited by its short reference


def test_an_excerpt_shows_two_sentences_and_leaves_room_for_the_memories_after_it(g):
    """Issue 61: an excerpt that took every sentence sharing a query word (a long assistant turn shares
    many) filled what was left, and a shorter memory ranked after it, holding the answer, was not shown."""
    advice = " ".join(f"Tip {i}: a shoe rack keeps old sneakers dry, so air your sneakers and wash the rack."
                      for i in range(12))
    g.add({"id": "advice", "content": f"Here is how to store old sneakers. {advice}", "subject": "assistant",
           "namespace": "team", "created_at": "2023-05-26T13:05:00+00:00"})
    g.add({"id": "said", "content": "I keep my old sneakers under the bed.", "subject": "user",
           "namespace": "team", "created_at": "2023-05-20T10:00:00+00:00"})
    ctx = g.context("Where do I keep my old sneakers? Shoe rack or bed?", 60, namespace="team", record=False)
    [line] = [x for x in ctx.lines if x.ids == ["advice"]]
    assert line.excerpt is True and line.text.count(" … ") <= 1  # two sentences at most
    assert any(x.ids == ["said"] for x in ctx.lines) and "under the bed" in ctx.text
    assert ctx.words <= 60

def test_an_invisible_query_is_refused_naming_the_field_over_mcp(g, config, embedder):
    from test_mcp import Session, run

    from graphcons.access.holder import Store
    from graphcons.mcp.server import build_server

    _incidents(g)
    before = counts(g)
    store = Store(config, embedder)

    async def body(s: Session):
        for tool in ("recall", "context"):
            _, err = await s.call(tool, query="\u200b")
            assert err is not None and err.startswith("bad_input (query): ") and "visible" in err, (tool, err)

    try:
        run(build_server(store), body)
    finally:
        store.close()
    assert counts(g) == before
