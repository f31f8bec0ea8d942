"""Issue 42: the integrations through every path: the LangGraph store and the LangChain retriever
over the real HTTP API (a store bound to one token cannot read another namespace), LangMem's memory
tools unchanged over GraphconsStore, and Documents with graphcons' provenance."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("langgraph")
pytest.importorskip("langchain_core")
from service_helpers import Server
from synthesis_helpers import NOW, add_incidents

from graphcons.consolidation.insight import reading
from graphcons.core.config import Config, ServiceConfig
from graphcons.integrations.langchain import GraphconsRetriever
from graphcons.integrations.langgraph import GraphconsStore


@pytest.fixture(scope="module")
def server(neo4j_settings, embedder):
    with Server(Config(neo4j=neo4j_settings, service=ServiceConfig()), embedder) as srv:
        yield srv


def test_a_store_bound_to_a_token_sees_only_its_namespace(g, server):
    team = GraphconsStore.over_http(server.url, g.create_token("team-agent", ["team"], "writer")[0])
    other = GraphconsStore.over_http(server.url, g.create_token("other-agent", ["other"], "writer")[0])
    team.put(("team", "u1"), "k1", {"text": "the staging database password rotates monthly", "tag": "ops"})
    other.put(("other", "u1"), "k1", {"text": "the other team ships on Fridays", "tag": "ops"})

    assert team.get(("team", "u1"), "k1").value["tag"] == "ops"
    assert team.get(("other", "u1"), "k1") is None  # another namespace answers as a missing item
    assert [i.namespace for i in team.search(("team",))] == [("team", "u1")]
    with pytest.raises(PermissionError, match="other"):
        team.search(("other",))
    assert team.search((), query="ships on Fridays") and all(
        i.namespace[0] == "team" for i in team.search((), query="ships on Fridays"))
    assert team.list_namespaces() == [("team", "u1")]
    with pytest.raises(PermissionError):  # writing elsewhere is refused, and writes nothing
        team.put(("other", "u9"), "k", {"text": "planted"})
    assert g.memories("other", subject="u9") == []
    # the items keep graphcons' provenance: the writer is the token, not a string the agent sent
    assert [m.source for m in g.memories("team")] == ["api:team-agent"]
    # delete through the API retires; the other namespace's item is untouched
    team.delete(("team", "u1"), "k1")
    assert team.get(("team", "u1"), "k1") is None and other.get(("other", "u1"), "k1") is not None
    retriever = GraphconsRetriever.over_http(server.url, g.create_token("team-reader", ["team"], "reader")[0], k=5)
    assert retriever.invoke("ships on Fridays") == []  # the retired one is gone, the other namespace unseen


def test_langmem_memory_tools_work_unchanged_on_graphcons(g):
    langmem = pytest.importorskip("langmem")
    store = GraphconsStore(g)
    manage = langmem.create_manage_memory_tool(namespace=("memories", "u1"), store=store)
    search = langmem.create_search_memory_tool(namespace=("memories", "u1"), store=store)
    out = manage.invoke({"content": "The user prefers aisle seats on long flights", "action": "create"})
    assert "created memory" in out.lower()
    found = search.invoke({"query": "seat preference"})
    assert "aisle seats" in found
    mem_key = store.search(("memories", "u1"))[0].key
    manage.invoke({"content": "The user prefers window seats now", "action": "update", "id": mem_key})
    assert "window seats" in search.invoke({"query": "seat preference"})
    manage.invoke({"action": "delete", "id": mem_key})
    assert "seats" not in search.invoke({"query": "seat preference"})
    assert g.db.run_text("MATCH (m:Memory) RETURN m.status AS s, m.version AS v")[0] == {"s": "archived", "v": 2}


def test_the_retriever_returns_documents_with_graphcons_metadata_and_insights(g):
    cluster = add_incidents(g, namespace="team")
    insight = g.approve(g.synthesize(cluster, now=NOW).proposal_id, by="ana", now=NOW).insight_id
    g.config.retrieval.insights = "plain"  # the insight in its own place (the default routes it: issue 61)
    retriever = GraphconsRetriever.over(g, namespace="team", k=10)
    docs = retriever.invoke("checkout 503 errors after deploys")
    assert docs and docs[0].metadata["score"] >= docs[-1].metadata["score"]
    by_id = {d.metadata["id"]: d for d in docs}
    assert insight in by_id
    ins = by_id[insight]
    assert ins.metadata["kind"] == "insight" and ins.metadata["epistemic_status"] == "hypothesis"
    assert set(ins.metadata["members"]) == set(cluster.member_ids)
    assert set(ins.metadata["derived_from"]) <= set(cluster.member_ids) and ins.metadata["derived_from"]
    statement, apart = reading(g.get(insight).content)  # issue 63: the facts; the reviewer's notes beside them
    assert ins.page_content == statement and ins.metadata["date"] and ins.metadata["epistemic_note"]
    assert "Epistemic status" not in statement and "A digest of what" not in statement
    assert all(ins.metadata.get(k) == v for k, v in apart.items())
    assert ins.metadata["summarizes"] == ins.metadata["members"]  # the store's name for the same list
    assert asyncio.run(retriever.ainvoke("checkout 503 errors after deploys")) == docs
    bar = docs[len(docs) // 2].metadata["score"]
    high = GraphconsRetriever.over(g, namespace="team", k=10, score_threshold=bar)
    assert high.invoke("checkout 503 errors after deploys") == [d for d in docs if d.metadata["score"] >= bar]
    # the store returns the same insight like an item, with its provenance ids
    items = GraphconsStore(g).search(("team",), query="checkout 503 errors after deploys", limit=10)
    found = [i for i in items if i.key == insight][0]
    made = found.value["_graphcons"]  # what graphcons made: its kind and provenance under the reserved key
    assert made["kind"] == "insight" and set(made["summarizes"]) == set(cluster.member_ids)
    assert found.value["text"] == statement  # the text where items keep theirs


def test_an_entity_profile_comes_back_as_an_item_with_its_sources(g):
    from test_reflection import add_many

    store = GraphconsStore(g)
    texts = ["Ana prefers TypeScript over JavaScript for new services.",
             "Ana said again she prefers TypeScript to JavaScript.",
             "Ana chose TypeScript for the billing rewrite.",
             "Ana takes the train to Porto rather than flying.",
             "Ana booked the train to Porto again this month.",
             "Ana prefers the train to flying whenever she can."]
    add_many(g, "ana", texts, namespace="memories")
    res = g.reflect("ana", namespace="memories")
    assert store.get(("memories", "ana"), "profile") is None  # not applied yet: no profile
    g.approve(res.proposal_id, by="reviewer")
    prof = g.profile("ana", namespace="memories")
    item = store.get(("memories", "ana"), "profile")
    made = item.value["_graphcons"]
    assert made["kind"] == "profile" and item.value["text"] == prof["summary"]
    assert made["source_ids"] == prof["source_ids"] and made["source_ids"]
    assert item.created_at is not None and item.updated_at >= item.created_at
    listed = store.search(("memories", "ana"), limit=50)
    assert [i.key for i in listed].count("profile") == 1
    semantic = [i for i in listed if i.value["_graphcons"]["kind"] in ("preference", "behavior", "fact")]
    assert semantic and all(set(i.value["_graphcons"]["derived_from"]) <= {f"ana-{n:03d}" for n in range(6)} for i in semantic)
