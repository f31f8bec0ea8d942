"""Issue 42: graphcons as a LangGraph store, side by side with LangGraph's own InMemoryStore (no
conformance suite for stores exists), over the real Neo4j, in process and through the HTTP API."""

from __future__ import annotations

import asyncio
import json

import pytest

pytest.importorskip("langgraph")
from langgraph.store.base import InvalidNamespaceError
from langgraph.store.memory import InMemoryStore

from graphcons.integrations.langgraph import GraphconsStore

ITEMS = [
    (("memories", "u1"), "k1", {"text": "prefers dark mode in every editor", "topic": "ui", "stars": 5}),
    (("memories", "u1"), "k2", {"text": "deploys on Tuesday mornings only", "topic": "ops", "stars": 3}),
    (("memories", "u2"), "key with spaces/and slash", {"text": "allergic to peanuts", "topic": "health", "stars": 4}),
    (("memories", "u1", "work"), "k3", {"text": "the on-call rota changes each Monday", "topic": "ops", "stars": 2}),
    (("notes",), "n1", {"content": "buy milk on the way home", "topic": "errands"}),
]


def seen(items):
    return sorted((it.namespace, it.key, repr(sorted(it.value.items()))) for it in items)


def fill(store):
    for ns, key, value in ITEMS:
        store.put(ns, key, value)


@pytest.fixture
def stores(g):
    ref, ours = InMemoryStore(), GraphconsStore(g)
    fill(ref)
    fill(ours)
    return ref, ours


def test_get_put_overwrite_and_delete_answer_like_in_memory_store(g, stores):
    for store in stores:
        assert store.get(("memories", "u1"), "k1").value == ITEMS[0][2]
        assert store.get(("memories", "u2"), "key with spaces/and slash").value == ITEMS[2][2]
        assert store.get(("memories", "u1"), "missing") is None
        assert store.get(("memories", "u2"), "k1") is None  # a key belongs to its namespace tuple
        store.put(("memories", "u1"), "k1", {"text": "prefers light mode now", "topic": "ui", "stars": 4})
        store.delete(("memories", "u1"), "k2")
    ref, ours = stores
    for ns, key in [(("memories", "u1"), "k1"), (("memories", "u1"), "k2"), (("notes",), "n1")]:
        a, b = ref.get(ns, key), ours.get(ns, key)
        assert (a and a.value) == (b and b.value)
    item = ours.get(("memories", "u1"), "k1")
    assert item.updated_at > item.created_at  # the overwrite is a new version of the same memory
    # never deleted: the old text is a kept version, the deleted item an archived memory
    mem_id = g.memories("memories", subject="u1")[0].id
    versions = g.history(mem_id)
    assert [v["content"] for v in versions] == ["prefers dark mode in every editor", "prefers light mode now"]
    assert [json.loads(v["metadata"])["value"]["stars"] for v in versions] == [5, 4]  # each value kept
    archived = g.db.run_text("MATCH (m:Memory {status: 'archived'}) RETURN m.content AS c")
    assert [r["c"] for r in archived] == ["deploys on Tuesday mornings only"]
    # put again after delete brings it back with the new value
    ours.put(("memories", "u1"), "k2", {"text": "deploys on Wednesdays", "topic": "ops"})
    assert ours.get(("memories", "u1"), "k2").value == {"text": "deploys on Wednesdays", "topic": "ops"}


def test_search_without_query_filters_and_pages_like_in_memory_store(stores):
    ref, ours = stores
    for prefix, flt in [(("memories",), None), (("memories", "u1"), None), (("memories",), {"topic": "ops"}),
                        (("memories",), {"stars": {"$gte": 3}}), ((), None), (("notes",), {"topic": "errands"})]:
        assert seen(ours.search(prefix, filter=flt, limit=50)) == seen(ref.search(prefix, filter=flt, limit=50)), prefix
    # pages: the same number of items, none twice, all of them across pages
    pages = [ours.search(("memories",), limit=2, offset=o) for o in (0, 2, 4)]
    assert [len(p) for p in pages] == [2, 2, 0]
    assert len({(i.namespace, i.key) for p in pages for i in p}) == 4


def test_search_with_a_query_is_graphcons_retrieve_with_scores(stores):
    _, ours = stores
    hits = ours.search(("memories",), query="which editor theme does the user like?", limit=3)
    assert hits[0].key == "k1" and hits[0].score is not None
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    only_ops = ours.search(("memories",), query="deploy schedule", filter={"topic": "ops"}, limit=10)
    assert {h.key for h in only_ops} == {"k2", "k3"}


def test_list_namespaces_with_prefix_suffix_and_depth(stores):
    ref, ours = stores
    for kw in [{}, {"prefix": ("memories",)}, {"suffix": ("work",)}, {"max_depth": 1}, {"max_depth": 2},
               {"prefix": ("memories", "*")}, {"limit": 2, "offset": 1}]:
        assert ours.list_namespaces(**kw) == ref.list_namespaces(**kw), kw


def test_async_batch_gives_the_same_answers(stores):
    ref, ours = stores

    async def run(store):
        await store.aput(("memories", "u3"), "a1", {"text": "likes jazz on Fridays"})
        got = await store.aget(("memories", "u3"), "a1")
        found = await store.asearch(("memories", "u3"))
        names = await store.alist_namespaces(prefix=("memories", "u3"))
        return got.value, seen(found), names

    assert asyncio.run(run(ours)) == asyncio.run(run(ref))


def test_bad_namespaces_are_refused_and_write_nothing(g):
    store = GraphconsStore(g)
    for ns in [(), ("bad ns",), ("memories", "a.b"), ("memories", "")]:
        with pytest.raises((InvalidNamespaceError, ValueError)):
            store.put(ns, "k", {"text": "x"})
    assert g.memories("memories") == []


def test_construction_warms_the_embedder_and_the_queries_so_the_first_call_is_not_the_slow_one(g, config):
    """Issue 49 item 6: the embedder a Graphcons loads on first use is loaded when the store is built
    (and retrieve's queries run once on an empty namespace); warm=False leaves it for the first call."""
    from graphcons.api import Graphcons

    with Graphcons(config) as cold:
        GraphconsStore(cold, warm=False)
        assert cold._embedder is None
        GraphconsStore(cold)
        assert cold._embedder is not None
    assert g.memories("graphcons-warm-up") == [] and g.scopes() == []  # the warm-up wrote nothing


def test_from_conn_string_opens_and_closes_a_store_like_langgraphs_postgres_store(g, config, embedder):
    from urllib.parse import quote

    uri = config.neo4j.uri.replace("://", f"://{config.neo4j.user}:{quote(config.neo4j.resolved_password(), safe='')}@")
    with GraphconsStore.from_conn_string(uri, config=config) as store:
        store.put(("memories", "u1"), "k1", {"data": "prefers tea"})
        assert store.get(("memories", "u1"), "k1").value == {"data": "prefers tea"}
        opened = store.backend.g
    assert opened.db.driver._closed  # the Graphcons it opened is closed on exit
    assert [m.content for m in g.memories("memories")] == ["prefers tea"]
    with pytest.raises(ValueError, match="token"):
        with GraphconsStore.from_conn_string("http://127.0.0.1:8765"):
            pass


def test_a_put_is_one_statement_and_a_search_reads_only_what_a_page_needs(g, stores):
    """Issue 63: a new key is admitted in one statement (its SIMILAR edges come after the put returns);
    a search reads the prefix's subjects by one index seek, not every memory, and has no diversity
    step (a page of the ranking as scored). A nested subject under the prefix is still searched."""
    from graphcons.core.db import counted

    _, ours = stores
    with counted() as put:
        ours.put(("memories", "u1"), "k9", {"text": "standups moved to 10 am on Thursdays"})
    assert put.names == ["memory/admit", "commit"]
    with counted() as search:
        found = ours.search(("memories", "u1"), query="when is the on-call rota changed", limit=2)
    assert search.names[0] == "memory/scopes_under"
    assert "memory/scopes" not in search.names and "retrieval/embeddings" not in search.names
    assert ("memories", "u1", "work") in {it.namespace for it in found}
    assert g.linker.wait(30)
    assert g.db.run_text("MATCH (m:Memory {namespace: 'memories'}) WHERE m.similar_pending "
                         "RETURN count(m) AS n")[0]["n"] == 0


def test_a_vector_mode_store_ranks_by_the_nearest_items_only(g, stores):
    from graphcons.core.db import counted

    _, ours = stores
    nearest = GraphconsStore(g, mode="vector")
    with counted() as search:
        found = nearest.search(("memories", "u1"), query="dark mode in the editor", limit=1)
    assert found[0].key == "k1"
    assert "retrieval/fulltext" not in search.names and "retrieval/spread" not in search.names
    with pytest.raises(ValueError, match="mode"):
        GraphconsStore(g, mode="semantic")
