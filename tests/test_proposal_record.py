"""Issue 60: a proposal is read through its typed record (`Proposal`, its kind's `Payload`), never by a
string key, outside its own decode / to_dict (graphcons/store/proposals.py): two greps keep the dict
reads from coming back. The decode and the wire shape round-trip a node of every kind, and every kind
is its own module in the queue's table. No server needed."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType

from graphcons.review.queue import KINDS, PAYLOADS
from graphcons.store.proposals import Payload, Proposal, Status

PKG = Path(__file__).resolve().parent.parent / "graphcons"
OWNER = PKG / "store" / "proposals.py"  # the one decode and the one wire shape
# The review spine: the queue, each kind, what makes or resynthesizes a proposal, and what shows one.
SPINE = ["review/queue.py", "consolidation/insight.py", "profiles/reflect_kind.py", "consolidation/consolidate.py",
         "profiles/reflect.py", "profiles/card_kind.py", "maintenance/merge/review.py",
         "maintenance/updates/review.py", "access/rights.py", "service/review.py", "mcp/server.py", "cli/review.py",
         "cli/tui.py", "battery/consolidation.py"]
# Anywhere in graphcons/: a payload read by key, a read of a variable named for a proposal, a read of
# what the facade's `proposal(...)` returns.
EVERYWHERE = re.compile(r"""\[["']payload["']\]|\.get\(["']payload["']|\b(proposal|locked)(\[|\.get\()"""
                        r"""|\.proposal\([^()]*\)(\[|\.get\()""")
# In the spine, also the short names a proposal or its payload goes by there.
IN_SPINE = re.compile(r"""\b(p|u|pay|prop)(\[|\.get\()["']""")


def _reads(path: Path, pattern: re.Pattern[str]) -> list[str]:
    return [f"{path.relative_to(PKG.parent)}:{n}: {line.strip()}"
            for n, line in enumerate(path.read_text().splitlines(), 1) if pattern.search(line)]


def test_no_string_key_read_of_a_proposal_outside_its_decode():
    found = [r for path in sorted(PKG.rglob("*.py")) if path != OWNER for r in _reads(path, EVERYWHERE)]
    found += [r for name in SPINE for r in _reads(PKG / name, IN_SPINE)]
    assert not found, ("read the typed Proposal (queue.get, Graphcons.proposal_record) instead:\n"
                       + "\n".join(found))


def test_the_greps_see_a_dict_read():
    assert EVERYWHERE.search('pair = p["payload"]["winner"]') and EVERYWHERE.search('proposal.get("kind")')
    assert EVERYWHERE.search('g.proposal(pid)["status"]') and IN_SPINE.search('p.get("member_ids")')
    assert not IN_SPINE.search("p.payload.winner") and not EVERYWHERE.search("p.to_dict()")


def test_every_kind_is_a_module_with_one_protocol():
    assert list(KINDS) == ["consolidate", "merge", "reflect", "card", "update"]
    for name, kind in KINDS.items():  # no adapters: the module itself is the kind
        assert isinstance(kind, ModuleType) and kind.KIND == name and issubclass(kind.PAYLOAD, Payload)
        assert all(callable(getattr(kind, verb)) for verb in ("approve", "revert", "reject"))


NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)
# One stored node of each kind as graphcons writes it (JSON text where it writes JSON text), after review.
NODES = [
    {"id": "p-1", "kind": "consolidate", "status": "applied", "created_at": NOW, "run_id": "r", "cluster_key": "k",
     "namespace": "default", "subject": "checkout", "member_ids": ["a", "b"], "member_versions": '{"a": 1, "b": 2}',
     "membership_hash": "h", "cited": ["a"], "title": "t", "provider": "offline", "model": "m", "prompt_hash": "ph",
     "grounding": '{"sources": ["s"]}', "epistemic_status": "hypothesis", "insight_id": "ins-1", "applied_at": NOW,
     "applied_by": "ana", "reviewed_at": NOW, "reviewed_by": "ana",
     "payload": json.dumps({"insight": {"title": "t", "claims": []}, "themes": {"themes": []}, "gate_figures": {"size": 2},
                            "context_ids": ["c"], "confidence": 0.5}, sort_keys=True)},
    {"id": "merge-1", "kind": "merge", "status": "rejected", "created_at": NOW, "memory_ids": ["a", "b"],
     "namespace": "default", "subject": "s", "title": "merge b into a", "reason": "no", "rejected_by": "bo",
     "payload": json.dumps({"winner": "a", "loser": "b", "score": 0.9, "rule_text": "r", "p_duplicate": None,
                            "features": {"f": 1.0}}, sort_keys=True)},
    {"id": "r-1", "kind": "reflect", "status": "reverted", "created_at": NOW, "member_ids": ["a"],
     "member_versions": '{"a": 1}', "cited": ["a"], "profile_version": 2, "profile_version_before": 1,
     "created_ids": ["sem-1"], "confirmed_ids": [], "revert_reason": "wrong",
     "payload": json.dumps({"reflection": {"summary": "x"}, "selection": None}, sort_keys=True)},
    {"id": "card-1", "kind": "card", "status": "applied", "created_at": NOW, "memory_ids": ["a"],
     "member_versions": '{"a": 1}', "kept_items": 1, "dropped_items": [],
     "payload": json.dumps({"items": [{"group": "g", "text": "t", "member_id": "a", "date": "2023"}], "parser": "p",
                            "memories": 1}, sort_keys=True)},
    {"id": "u-1", "kind": "update", "status": "pending", "created_at": NOW, "memory_ids": ["a", "b"], "attribute": "city",
     "since": "2020-01-01", "payload": json.dumps({"newer": "a", "older": "b", "attribute": "city", "old_value": "x",
                                                   "new_value": "y", "newer_since": "2020-01-01", "newer_version": None},
                                                  sort_keys=True)},
    {"id": "x-1", "kind": "other-kind", "status": "pending", "created_at": NOW},
]


def test_the_wire_shape_is_the_stored_node_with_its_json_decoded():
    for node in NODES:
        p = Proposal.decode(node, PAYLOADS)
        wire = {k: json.loads(v) if k in ("member_versions", "grounding", "payload") else v for k, v in node.items()}
        if p.kind == "consolidate":  # shown at the top level, as before issue 60
            wire.update(wire.pop("payload"))
        assert p.to_dict() == wire and isinstance(p.status, Status) and isinstance(p.payload, PAYLOADS.get(p.kind, Payload))
    merge = Proposal.decode(NODES[1], PAYLOADS)
    assert (merge.payload.winner, merge.payload.loser, merge.member_ids) == ("a", "b", ("a", "b"))
    assert merge.to_dict(only=("kind", "id", "member_ids")) == {"kind": "merge", "id": "merge-1"}


def test_a_consolidate_node_stored_before_issue_60_reads_the_same():
    node = dict(NODES[0])
    for key, value in json.loads(node.pop("payload")).items():
        node[key] = json.dumps(value) if key in ("insight", "themes", "gate_figures") else value
    assert Proposal.decode(node, PAYLOADS).to_dict() == Proposal.decode(NODES[0], PAYLOADS).to_dict()
