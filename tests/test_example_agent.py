"""Issue 42: examples/langgraph_agent.py, a LangGraph agent (a fake chat model, labelled so) that
remembers through GraphconsStore and, after a consolidation pass, recalls each fact once, on the real Neo4j."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("langgraph")
pytest.importorskip("langchain_core")
from synthesis_helpers import NOW

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "langgraph_agent.py"


def test_the_example_agent_recalls_each_fact_once_after_consolidation(g, capsys):
    spec = importlib.util.spec_from_file_location("langgraph_agent", EXAMPLE)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    assert "FAKE" in EXAMPLE.read_text() and "ParrotFakeChatModel" in EXAMPLE.read_text()
    out = example.main(g, now=NOW)
    assert len(out["insights"]) == 1
    insight = out["insights"][0]
    # the four remembered turns, stored by the agent through the store alone, are the insight's provenance
    turns = {m.id for m in g.memories("agentdemo", subject="ops-team") if m.content in example.TURNS}
    assert {s["id"] for s in g.explain(insight)["sources"]} == turns and len(turns) == 4
    # issue 61 / 63: the offline digest restates its turns, so the search after consolidation is routed
    # to the turns themselves: no insight item, each fact once, every item one of the remembered turns
    recalled = out["recalled"]
    assert recalled and all(r["kind"] == "item" and r["key"] != insight for r in recalled)
    assert len({r["text"] for r in recalled}) == len(recalled)
    assert {r["text"] for r in recalled} <= {t[:80] for t in example.TURNS}
    assert "agent (fake model): I remember:" in capsys.readouterr().out
