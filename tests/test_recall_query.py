"""One recall query value (issue 60 item 3): the transports build a `RecallQuery` with a recipe and
hand it to the facade; a Python caller's keywords end in the same value, checked once. Real Neo4j
for the facade calls."""

from __future__ import annotations

import pytest
from current_helpers import NOW, PURCHASES, add

from graphcons.core.config import RetrievalConfig
from graphcons.core.errors import ValidationError
from graphcons.recall.hits import InsightMode, Mode
from graphcons.recall.query import POOL, RecallQuery

Q = "What did I buy last month?"


def test_the_recipes_say_what_each_transport_asks():
    rc = RetrievalConfig()
    page = RecallQuery.page(rc, Q, 7, namespace="shop", now=NOW)
    assert (page.k, page.diverse, page.record, page.namespace) == (7, False, False, "shop")
    assert RecallQuery.for_context(rc, Q, now=NOW).k == POOL
    found = RecallQuery.keyword_search(rc, "last month", 3)
    assert (found.mode, found.insights, found.record, found.window) == (Mode.KEYWORD, InsightMode.PLAIN, False, None)
    with pytest.raises(ValidationError) as err:
        RecallQuery.keyword_search(rc, " ", 3)
    assert err.value.field == "text"
    assert RecallQuery.of(rc, Q, 5, now=NOW) == RecallQuery.of(rc, Q, 5, now="2023-06-07")  # one value, however said


def test_a_query_built_by_a_transport_answers_as_the_keywords_do_and_nothing_is_given_twice(g):
    add(g, PURCHASES, namespace="shop")
    q = RecallQuery.of(g.config.retrieval, Q, 4, namespace="shop", record=False, now=NOW, mode="vector")
    by_keywords = g.retrieve(Q, 4, namespace="shop", record=False, now=NOW, mode="vector")
    assert [h.to_dict() for h in g.retrieve(q)] == [h.to_dict() for h in by_keywords]
    ctx = g.context(RecallQuery.for_context(g.config.retrieval, Q, namespace="shop", record=False, now=NOW), 300)
    assert ctx.to_dict() == g.context(Q, 300, namespace="shop", record=False, now=NOW).to_dict()
    for call, field in ((lambda: g.retrieve(q, k=3), "k"), (lambda: g.retrieve(q, namespace="other"), "namespace"),
                        (lambda: g.context(q, 300, now=NOW), "now")):
        with pytest.raises(ValidationError) as err:  # it would be silently ignored
            call()
        assert err.value.field == field
