"""Issue 59's smaller items, where a user meets them (HTTP, the CLI): a restricting `when` window
shows nothing outside it, a successor included; number words of any size are numbers to the merge
guard; a reverted insight's justification is withdrawn and stays so."""

from __future__ import annotations

import json
import re

import pytest
from conftest import graphcons_cli
from current_helpers import Q, food_with_update
from service_helpers import Server
from synthesis_helpers import NOW, add_incidents

from graphcons.core.config import Config


@pytest.fixture(scope="module")
def server(neo4j_settings, embedder):
    with Server(Config(neo4j=neo4j_settings), embedder) as srv:
        yield srv


def test_restrict_never_brings_in_a_successor_outside_the_window(g, server):
    """"new" (27 May) superseded "old" (1 May): asked about 1-20 May with when_mode restrict, the
    answer holds "old" as the value of the window, unmarked, and never "new"."""
    food_with_update(g)
    c = server.client(g.create_token("reader-food", ["food"], "reader")[0])
    window = {"when": "2023-05-01/2023-05-20", "when_mode": "restrict"}
    hits = c.post("/v1/retrieve", json={"query": Q, "k": 5, **window}).json()["hits"]
    shown = {h["memory"]["id"]: h for h in hits}
    assert "new" not in shown and "old" in shown
    assert shown["old"]["superseded_by"] is None  # within the window it is the value that held
    ctx = c.post("/v1/context", json={"query": Q, "budget_words": 300, **window}).json()
    assert "new" not in ctx["ids"] and "old" in ctx["ids"] and "earlier, until" not in ctx["text"]
    # without the window the current value still comes first and the older is marked
    plain = c.post("/v1/retrieve", json={"query": Q, "k": 5}).json()["hits"]
    order = [h["memory"]["id"] for h in plain]
    assert order.index("new") < order.index("old") and plain[order.index("old")]["superseded_by"] == "new"
    # a window holding both: the successor is inside, so it comes first as before
    both = c.post("/v1/retrieve", json={"query": Q, "k": 5, "when": "2023-05", "when_mode": "restrict"}).json()["hits"]
    order = [h["memory"]["id"] for h in both]
    assert order.index("new") < order.index("old")


def test_the_merge_pass_keeps_twelve_and_fifteen_books_apart(g, neo4j_settings, tmp_path):
    """"fifteen" was a content word, not a number: the pair was proposed as a duplicate at 0.92."""
    cli = graphcons_cli(neo4j_settings, tmp_path)
    ids = [g.add({"content": text, "subject": "reading"}).id
           for text in ("The user has read twelve books this year.", "The user has read fifteen books this year.")]
    out = cli("merge", "--subject", "reading", "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["proposed"] == [] and report["applied"] == []
    (conflict,) = report["conflicts"]
    assert {conflict["winner"], conflict["loser"]} == set(ids) and "numbers" in conflict["contradictions"]


def test_reverting_an_insight_withdraws_its_justification_for_good(g, server):
    """A reverted insight's synthesis justification stayed `standing`: reverting withdraws it (the
    insight is unsupported, and not due for re-synthesis: a reviewer undid it); a premise that is
    later lost and reinstated does not make it stand again."""
    pid = g.synthesize(add_incidents(g), now=NOW).proposal_id
    rev = server.client(g.create_token("rev", ["default"], "reviewer")[0])
    iid = rev.post(f"/v1/proposals/{pid}/approve").json()["insight_id"]
    (j,) = rev.get(f"/v1/insights/{iid}/epistemics").json()["justifications"]
    assert j["status"] == "standing"
    assert rev.post(f"/v1/proposals/{pid}/revert", json={"reason": "wrong"}).status_code == 200
    ep = rev.get(f"/v1/insights/{iid}/epistemics").json()
    (j,) = ep["justifications"]
    assert j["status"] == "withdrawn" and "reverted" in j["withdrawn_cause"]
    assert ep["epistemic_status"] == "unsupported"
    task = g.db.run_text("MATCH (t:SynthesisTask {cluster_key: $k}) RETURN t.status AS s", k=g.proposal(pid)["cluster_key"])
    assert task == [{"s": "reverted"}]  # not re-synthesized behind the reviewer's back
    # a premise lost (deprecated) and restored: the reverted justification stays withdrawn
    member, other = j["premises"][0]["id"], j["premises"][1]["id"]
    g.deprecate(member, replaced_by=other, dry_run=False, now=NOW)
    assert rev.get(f"/v1/insights/{iid}/epistemics").json()["justifications"][0]["premises"][0]["status"] == "lost"
    g.restore(member, now=NOW)
    (j,) = rev.get(f"/v1/insights/{iid}/epistemics").json()["justifications"]
    assert j["status"] == "withdrawn"


KIM = [("kim-1", "I run along the river every morning before work."),
       ("kim-2", "Do you like to fly kites? I fly to Lisbon every month for work."),  # a question to the assistant
       ("kim-3", "You are a hardworking person, always helping me with my plans."),  # about the assistant
       ("kim-4", "Yes, I like hiking in the hills on Sundays.")]  # an acknowledgement before a fact


def test_a_reflections_summary_is_checked_like_its_statements_over_http(g, neo4j_settings, embedder):
    """The summary kept "likes to fly kites" (a question to the assistant) and "is a hardworking
    person" (a sentence about the assistant); kept statements kept a leading "Yes, "."""
    from llm_server import FakeLLM

    from graphcons.core.config import LLMConfig

    for mid, text in KIM:
        g.add({"id": mid, "content": text, "subject": "user-kim", "namespace": "team", "source": "chat:kim"})

    def short(request, text):
        prompt = "\n".join(m.get("content") or "" for m in request.get("messages", []))
        return re.search(r"MEMORY id=(\S+)[^\n]*\n" + re.escape(text), prompt).group(1)

    def reflection(req):
        return {"args": {"preferences": [], "behaviors": [], "summary": (
            "Kim runs along the river every morning. Kim likes to fly kites. Kim is a hardworking person. "
            "Of course. Kim hikes in the hills on Sundays."), "facts": [
            {"statement": "Yes, Kim runs along the river every morning", "memory_ids": [short(req, KIM[0][1])]},
            {"statement": "Sure, Kim likes hiking in the hills on Sundays", "memory_ids": [short(req, KIM[3][1])]}]}}

    with FakeLLM() as llm:
        llm.push(reflection)
        cfg = Config(neo4j=neo4j_settings, llm=LLMConfig(provider="openai", base_url=llm.base_url, model="test-model",
                                                         timeout_s=5.0, max_retries=0))
        with Server(cfg, embedder) as srv:
            c = srv.client(g.create_token("kim-writer", ["team"], "admin")[0])
            res = c.post("/v1/reflect", json={"subject": "user-kim"}).json()
            assert res["status"] == "proposed", res
            p = c.get(f"/v1/proposals/{res['proposal_id']}").json()
            assert c.post(f"/v1/proposals/{res['proposal_id']}/approve").status_code == 200
            profile = c.get("/v1/profiles/user-kim").json()
    assert p["payload"]["reflection"]["summary"] == \
        "Kim runs along the river every morning. Kim hikes in the hills on Sundays."
    assert p["grounding"]["dropped_summary"] == ["Kim likes to fly kites.", "Kim is a hardworking person.", "Of course."]
    assert [f["statement"] for f in p["payload"]["reflection"]["facts"]] == [
        "Kim runs along the river every morning", "Kim likes hiking in the hills on Sundays"]
    assert profile["summary"] == "Kim runs along the river every morning. Kim hikes in the hills on Sundays."
    assert "Yes," not in json.dumps(profile) and "kites" not in json.dumps(profile)
