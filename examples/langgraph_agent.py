"""A LangGraph agent that remembers through graphcons (issue 42), runnable without any model service.

    python examples/langgraph_agent.py          # Neo4j from graphcons.toml / NEO4J_* (scripts/neo4j env)

The agent's "LLM" is LangChain's ParrotFakeChatModel: a FAKE chat model that repeats the last message
it is given, so the example needs no model service and its output is deterministic. A real agent
swaps in any chat model; nothing else changes. The memory side is real: the graph is compiled with
`store=GraphconsStore(g)`, and the agent node reads and writes LangGraph's store API only (no
graphcons code in it). After a few turns a consolidation pass (the offline synthesizer) turns the
related memories into an insight; a person approves it (here the script, standing in for
`graphcons review`). The offline insight is a digest of its turns' own sentences: it says nothing they
do not, so the next turn's search is routed to the turns it groups, each once (issue 61: an insight
takes a place only where it says its members' answer in fewer tokens), and its provenance says which.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone

from langchain_core.language_models.fake_chat_models import ParrotFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.store.base import BaseStore

from graphcons import Graphcons
from graphcons.integrations.langgraph import GraphconsStore

NAMESPACE = "agentdemo"
FAKE_LLM = ParrotFakeChatModel()  # a FAKE model: it repeats its last input message (no model service)
TURNS = [
    "Checkout returned 503 after deploy 4.1; we rolled back after 12 minutes.",
    "503s on checkout right after deploy 4.2, the cache was cold.",
    "Deploy 4.3 went out and checkout served 503 after the deploy for 8 minutes.",
    "Again 503 after deploy 4.4 on checkout; we should warm the cache before switching traffic.",
]


class State(MessagesState):
    recalled: list[dict]


def agent(state: State, *, store: BaseStore) -> dict:
    """Recall what the store holds about the user's words, remember them, answer (fake model)."""
    said = state["messages"][-1].content
    user = (NAMESPACE, "ops-team")  # graphcons namespace "agentdemo", subject "ops-team"
    recalled = store.search(user, query=said, limit=3)
    store.put(user, "turn-" + hashlib.sha256(said.encode()).hexdigest()[:12], {"text": said})
    top = recalled[0].value["text"] if recalled else "nothing yet"  # an insight shown has its text there too
    reply = FAKE_LLM.invoke([HumanMessage(f"I remember: {top}")])
    made = [r.value.get("_graphcons", {}) for r in recalled]  # what graphcons made: kind and provenance
    return {"messages": [AIMessage(reply.content)],
            "recalled": [{"key": r.key, "kind": m.get("kind", "item"), "text": r.value["text"][:80],
                          "summarizes": m.get("summarizes", [])} for r, m in zip(recalled, made)]}


def build(store: BaseStore):
    graph = StateGraph(State)
    graph.add_node("agent", agent)
    graph.add_edge(START, "agent")
    return graph.compile(store=store)


def consolidate(g: Graphcons, now: datetime) -> list[str]:
    """One consolidation pass with the offline synthesizer, its proposals approved (a person does
    this in `graphcons review`); the new insight ids."""
    g.config.consolidation.enabled, g.config.consolidation.dry_run = True, False
    g.config.consolidation.min_salience = 0.0  # four memories are enough for the demo's gate
    g.consolidate(namespace=NAMESPACE, now=now)
    pending = g.proposals(status="pending", kind="consolidate", namespaces=[NAMESPACE])
    return [g.approve(p["id"], by="example-reviewer", now=now).insight_id for p in pending]


def main(g: Graphcons, now: datetime | None = None) -> dict:
    now = now or datetime.now(timezone.utc)
    app = build(GraphconsStore(g))
    for text in TURNS:
        out = app.invoke({"messages": [HumanMessage(text)], "recalled": []})
        print("user:", text, "\nagent (fake model):", out["messages"][-1].content)
    insights = consolidate(g, now)
    print("consolidation pass: insight(s)", ", ".join(insights) or "none")
    out = app.invoke({"messages": [HumanMessage("What usually happens to checkout after a deploy?")], "recalled": []})
    print("agent (fake model):", out["messages"][-1].content)
    for r in out["recalled"]:
        print(f"  recalled {r['kind']}: {r['key']} {r['text']!r} summarizes={r['summarizes']}")
    return {"insights": insights, "recalled": out["recalled"]}


if __name__ == "__main__":
    with Graphcons() as graphcons:
        graphcons.init()
        main(graphcons)
