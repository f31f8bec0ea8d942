"""Issue 59's smaller items, where a user meets them (HTTP, the CLI): a restricting `when` window
shows nothing outside it, a successor included; number words of any size are numbers to the merge
guard; a reverted insight's justification is withdrawn and stays so."""

from __future__ import annotations

import json

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
