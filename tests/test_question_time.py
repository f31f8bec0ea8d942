"""The question's own time (issue 61 item 3): "last month", "in May", "two weeks ago" in a question,
resolved against the caller's `now` (else `as_of`, else the clock), rank the memories of that time
first; a question that names no time ranks exactly as before; the window is shown (`hits.window`,
the context's `window`). Real Neo4j, the facade."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from current_helpers import NOW, PURCHASES, add

from graphcons.core.errors import ValidationError


def ids(hits):
    return [h.memory.id for h in hits]


@pytest.fixture
def shop(g):
    add(g, PURCHASES, namespace="shop")
    g.config.retrieval.question_time = True  # the setting on (off by default: the ablation in docs/RETRIEVAL.md)
    return g


def test_the_questions_time_is_off_by_default_and_when_auto_asks_for_it(g):
    add(g, PURCHASES, namespace="shop")
    assert g.config.retrieval.question_time is False
    q = "What did I buy last month?"
    plain = g.retrieve(q, k=4, namespace="shop", record=False, now=NOW, mode="vector")
    assert plain.window is None and ids(plain)[0] != "bike"
    asked = g.retrieve(q, k=4, namespace="shop", record=False, now=NOW, mode="vector", when="auto")
    assert ids(asked)[0] == "bike" and asked.window.phrases == ("last month",)


def test_last_month_ranks_the_memory_of_that_month_first_given_now(shop):
    g = shop
    q = "What did I buy last month?"
    without = g.retrieve(q, k=4, namespace="shop", record=False, when="off", mode="vector")
    assert ids(without)[0] != "bike"  # by its words another purchase matches best
    hits = g.retrieve(q, k=4, namespace="shop", record=False, now=NOW, mode="vector")
    assert ids(hits)[0] == "bike" and set(ids(hits)) == set(ids(without))
    assert hits.window.to_dict() == {"start": "2023-05-01", "end": "2023-05-31", "mode": "boost",
                                     "source": "question", "phrases": ["last month"]}
    ctx = g.context(q, 300, namespace="shop", record=False, now=datetime(2023, 6, 7, 9, tzinfo=timezone.utc))
    assert "bike" in ctx.ids and ctx.window == hits.window and ctx.to_dict()["window"]["start"] == "2023-05-01"
    assert ids(g.retrieve("What did I buy in May 2023?", k=4, namespace="shop", record=False,
                          mode="vector"))[0] == "bike"  # an absolute month needs no now
    # as_of wins over now: "last month" of 10 April 2023 is March
    march = g.retrieve(q, k=4, namespace="shop", record=False, now=NOW, as_of="2023-04-10", mode="vector")
    assert ids(march)[0] == "kayak" and march.window.start.isoformat() == "2023-03-01"


def test_a_question_naming_no_time_ranks_exactly_as_before(shop):
    g = shop
    q = "What did I buy?"
    for mode in ("hybrid", "vector", "keyword"):
        off = g.retrieve(q, k=4, namespace="shop", record=False, when="off", mode=mode)
        on = g.retrieve(q, k=4, namespace="shop", record=False, now=NOW, mode=mode)
        assert [h.to_dict() for h in on] == [h.to_dict() for h in off] and on.window is None, mode
    ctx = g.context(q, 300, namespace="shop", record=False, now=NOW)
    assert ctx.to_dict() == g.context(q, 300, namespace="shop", record=False, when="off").to_dict()
    assert "window" not in ctx.to_dict()


def test_question_time_off_in_the_config_leaves_the_ranking_as_it_was(shop):
    g = shop
    g.config.retrieval.question_time = False
    q = "What did I buy last month?"
    hits = g.retrieve(q, k=4, namespace="shop", record=False, now=NOW, mode="vector")
    assert hits.window is None
    assert ids(hits) == ids(g.retrieve(q, k=4, namespace="shop", record=False, when="off", mode="vector"))
    assert ids(g.retrieve(q, k=4, namespace="shop", record=False, now=NOW, when="auto", mode="vector"))[0] == "bike"


@pytest.mark.parametrize("now", ["yesterday", "2023-06-07T10:00:00", 20230607])
def test_a_bad_now_is_refused_naming_now(shop, now):
    for call in (lambda: shop.retrieve("What did I buy last month?", now=now, record=False),
                 lambda: shop.context("What did I buy last month?", now=now, record=False)):
        with pytest.raises(ValidationError) as err:
            call()
        assert err.value.field == "now"


def test_the_integrations_take_now(shop):
    """The LangChain retriever (on the retriever or per call) and the LangGraph store's search pass
    `now` on; a bad one is refused naming it."""
    from graphcons.integrations.langchain import GraphconsRetriever
    from graphcons.integrations.langgraph import GraphconsStore

    q = "What did I buy last month?"
    docs = GraphconsRetriever.over(shop, namespace="shop", k=4, now=NOW).invoke(q)
    before = [d.metadata["id"] for d in GraphconsRetriever.over(shop, namespace="shop", k=4, when="off").invoke(q)]
    assert [d.metadata["id"] for d in docs].index("bike") < before.index("bike")  # moved up
    assert [d.metadata["id"] for d in GraphconsRetriever.over(shop, namespace="shop", k=4).invoke(q, now=NOW)] == \
        [d.metadata["id"] for d in docs]
    with pytest.raises(ValueError, match="now must be a date"):
        GraphconsRetriever.over(shop, now="soon")
    store = GraphconsStore(shop)
    store.search(("shop",), query=q, now=NOW)  # accepted: the store's own items are dated when put
    with pytest.raises(ValidationError) as err:
        store.search(("shop",), query=q, now="soon")
    assert err.value.field == "now"
