"""Issue 42: examples/langgraph_agent.py, a LangGraph agent (a fake chat model, labelled so) that
remembers through GraphconsStore and recalls an insight after a consolidation pass, on the real Neo4j."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("langgraph")
pytest.importorskip("langchain_core")
from synthesis_helpers import NOW

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "langgraph_agent.py"


def test_the_example_agent_recalls_an_insight_after_consolidation(g, capsys):
    spec = importlib.util.spec_from_file_location("langgraph_agent", EXAMPLE)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    assert "FAKE" in EXAMPLE.read_text() and "ParrotFakeChatModel" in EXAMPLE.read_text()
    out = example.main(g, now=NOW)
    assert len(out["insights"]) == 1
    insight = out["insights"][0]
    recalled = {r["key"]: r for r in out["recalled"]}
    assert insight in recalled and recalled[insight]["kind"] == "insight"
    # its provenance: the four remembered turns, stored by the agent through the store alone
    turns = {m.id for m in g.memories("agentdemo", subject="ops-team") if m.content in example.TURNS}
    assert set(recalled[insight]["summarizes"]) == turns and len(turns) == 4
    assert "agent (fake model): I remember:" in capsys.readouterr().out
