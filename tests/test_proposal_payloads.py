"""Issue 60: every kind keeps what it proposes under `payload`. A consolidate proposal stored the
way graphcons stored it before (its insight, themes, gate figures, context ids and confidence at the
top level) reads the same, is moved under `payload` by `init` (or `graphcons migrate payloads`),
moved back by the reverse, and approves as before."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from synthesis_helpers import NOW, add_incidents, insights

# The properties graphcons wrote on a consolidate proposal before issue 60 (consolidate.py's props
# and `status`), JSON text where it wrote JSON text.
BEFORE = {"id", "kind", "created_at", "run_id", "cluster_key", "namespace", "subject", "member_ids",
          "member_versions", "membership_hash", "cited", "title", "insight", "themes", "provider", "model",
          "prompt_hash", "gate_figures", "grounding", "context_ids", "confidence", "epistemic_status", "status"}
JSON_TEXT = ("insight", "themes", "gate_figures", "member_versions", "grounding")


def _node(g, pid):
    return g.db.run_text("MATCH (p:Proposal {id: $id}) RETURN p {.*} AS p", id=pid)[0]["p"]


def test_a_consolidate_proposal_is_stored_under_payload_and_shown_as_before(g):
    pid = g.synthesize(add_incidents(g), now=NOW).proposal_id
    node = _node(g, pid)
    assert not {"insight", "themes", "gate_figures", "context_ids", "confidence"} & node.keys()
    payload = json.loads(node["payload"])
    assert set(payload) == {"insight", "themes", "gate_figures", "context_ids", "confidence"}
    shown = g.proposal(pid)  # the wire keeps the insight's fields at the top level, no `payload`
    assert shown["insight"] == payload["insight"] and shown["gate_figures"] == payload["gate_figures"]
    assert "payload" not in shown and shown["confidence"] == payload["confidence"]


def test_a_store_written_before_issue_60_migrates_both_ways_and_approves(g):
    pid = g.synthesize(add_incidents(g), now=NOW).proposal_id
    shown = g.proposal(pid)
    assert g.migrate_payloads(reverse=True) == {"direction": "flatten", "moved": 1}
    old = _node(g, pid)  # as graphcons stored it before issue 60
    assert set(old) == BEFORE and all(isinstance(old[k], str) for k in JSON_TEXT)
    assert json.loads(old["insight"]) == shown["insight"] and old["context_ids"] == shown["context_ids"]
    assert g.proposal(pid) == shown  # a store not migrated yet reads the same
    assert g.migrate_payloads(reverse=True)["moved"] == 0  # a second run changes nothing

    assert g.init()["payloads_nested"] == 1 and g.init()["payloads_nested"] == 0  # init migrates, once
    node = _node(g, pid)
    assert set(node) == BEFORE - {"insight", "themes", "gate_figures", "context_ids", "confidence"} | {"payload"}
    assert g.proposal(pid) == shown
    moved = g.audit_log(op="migrate_payloads")
    assert sorted(a["details"]["direction"] for a in moved) == ["flatten", "nest"]

    res = g.approve(pid, now=NOW)
    assert res.changed and insights(g) == 1 and g.proposal(pid)["status"] == "applied"


# A consolidate proposal as the code before issue 60 stored it: that code (commit 5b1f6dd) synthesized
# add_incidents at NOW with the offline synthesizer, and the node's properties were read back as they
# were (created_at as ISO text).
BEFORE_60 = Path(__file__).parent / "data" / "consolidate_proposal_before_issue_60.json"


def test_a_proposal_written_by_the_code_before_issue_60_reads_migrates_and_approves(g):
    stored = json.loads(BEFORE_60.read_text())
    add_incidents(g)  # its members, at the versions it was made from
    props = {**stored, "created_at": datetime.fromisoformat(stored["created_at"])}
    g.db.run_text("CREATE (p:Proposal) SET p = $props WITH p UNWIND keys($versions) AS id "
                  "MATCH (m:Memory {id: id}) CREATE (p)-[:ABOUT {version: $versions[id]}]->(m)",
                  props=props, versions=json.loads(stored["member_versions"]))
    shown = {k: json.loads(v) if k in JSON_TEXT else v for k, v in props.items()}  # as the code before showed it
    assert g.proposal(stored["id"]) == shown
    assert g.init()["payloads_nested"] == 1
    assert g.proposal(stored["id"]) == shown and "payload" in _node(g, stored["id"])
    res = g.approve(stored["id"], now=NOW)
    assert res.changed and insights(g) == 1 and g.get(res.insight_id).title.startswith(shown["insight"]["title"])
