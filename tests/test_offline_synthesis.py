"""The offline synthesizer states only what its members say (issue 12): a claim is a statement
every cited member contains (not just a shared name), incident lines only for incidents,
tensions only where members disagree. Checked on incidents and on real conversational
memories from ../shared/data/memorybank_en.json."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from graphcons.consolidation.grounding import ground
from graphcons.consolidation.synthesis.offline import OfflineSynthesizer, _stem
from graphcons.consolidation.synthesis.prompt import Shown, SynthesisPrompt

# ../shared/data next to the checkout, or GRAPHCONS_DEV_DATA (a worktree sits one level deeper)
MEMORYBANK = Path(os.environ.get("GRAPHCONS_DEV_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data") \
    / "memorybank_en.json"
INCIDENT_LINES = ("root cause", "fix, rollback or runbook")


def _synth(rows, subject, kind="observation", source=None):
    members = [Shown(id=mid, title=text, content=text, kind=kind, sources=(source or f"src-{mid}",))
               for mid, text in rows]
    prompt = SynthesisPrompt(members=members, subject=subject)
    out = OfflineSynthesizer().synthesize(prompt)
    ground(out.insight, out.themes, prompt.member_ids, {m.id: m.sources for m in members})  # raises if ungrounded
    return out.insight, dict(rows)


def _words(text):
    return {_stem(w) for w in re.findall(r"[A-Za-z0-9][A-Za-z0-9'_.-]*[A-Za-z0-9]|[A-Za-z0-9]", text)}


def _supported(claim, texts, subject):
    """Every content word of the statement (minus the subject prefix) is in every cited member."""
    statement = claim.statement.split(": ", 1)[1] if claim.statement.lower().startswith(f"{subject.lower()}: ") \
        else claim.statement
    if statement.startswith("Recurring detail: "):
        statement = statement[len("Recurring detail: "):].split(" (")[0]
    needed = {w for w in _words(statement) if len(w) > 2} - {"the", "and", "for", "with", "after", "before"}
    return all(needed <= _words(texts[m]) for m in claim.member_ids)


def test_three_different_facts_about_one_person_are_not_one_confirmed_claim():
    insight, texts = _synth([("a1", "Andrew is planning to go birdwatching next weekend."),
                             ("a2", "Andrew loves eagles, they are his favourite birds."),
                             ("a3", "Andrew hosted a board game night with friends.")], "Andrew", source="chat")
    assert all(len(c.member_ids) == 1 for c in insight.claims)  # nothing shared beyond the name
    assert {c.member_ids[0] for c in insight.claims} == {"a1", "a2", "a3"}
    assert "confirmed" not in insight.title and insight.tensions == []
    assert not any(line in gap for gap in insight.gaps for line in INCIDENT_LINES)


def test_incidents_get_a_shared_claim_and_incident_gaps_and_a_real_disagreement():
    rows = [("x1", "The deploy did not cause 503 errors on checkout."),
            ("x2", "503 errors on checkout after the deploy."),
            ("x3", "Checkout 503 errors began after deploy 4.5."),
            ("x4", "Checkout served 503 errors after deploy 4.6 for ten minutes.")]
    insight, texts = _synth(rows, "checkout", kind="incident")
    main = insight.claims[0]
    assert "503 errors" in main.statement and main.member_ids == ["x1", "x2", "x3", "x4"]
    assert all(_supported(c, texts, "checkout") for c in insight.claims)
    assert [t.member_ids[0] for t in insight.tensions] == ["x1"]  # the one member that negates it
    assert any("root cause" in gap for gap in insight.gaps)


def test_a_deadline_restated_is_one_claim_and_an_unrelated_no_is_no_tension():
    insight, texts = _synth([("pd-1", "Monday standup: the Atlas project deadline is Friday."),
                             ("pd-2", "Tuesday: the client confirmed the Atlas project deadline is Friday."),
                             ("pd-3", "Wednesday: the Atlas project deadline is still Friday, no extension.")],
                            "project-atlas", kind="fact")
    assert "deadline is Friday" in insight.claims[0].statement
    assert insight.claims[0].member_ids == ["pd-1", "pd-2", "pd-3"]
    assert insight.tensions == []  # "no extension" does not deny the deadline
    assert not any(line in gap for gap in insight.gaps for line in INCIDENT_LINES)


def _memorybank_groups():
    if not MEMORYBANK.is_file():
        pytest.skip(f"dev data not found: {MEMORYBANK}")
    data = json.loads(MEMORYBANK.read_text())
    for user, record in sorted(data.items()):
        texts = [(f"mb-{day}-{i}", turn["query"].strip()) for day in sorted(record.get("history", {}))
                 for i, turn in enumerate(record["history"][day]) if turn.get("query", "").strip()]
        # groups of a user's messages that share a word (what a cluster of one user looks like)
        by_word: dict[str, list[tuple[str, str]]] = {}
        for mid, text in texts:
            for w in _words(text):
                if len(w) > 4:
                    by_word.setdefault(w, []).append((mid, text))
        for w in sorted(by_word):
            if 3 <= len(by_word[w]) <= 8:
                yield user.strip(), by_word[w]


def test_on_memorybank_every_claim_is_in_every_member_it_cites():
    checked = separate = 0
    for user, rows in _memorybank_groups():
        insight, texts = _synth(rows, user, source=f"chat-{user}")
        for claim in insight.claims:
            assert _supported(claim, texts, user), (user, claim.statement, [texts[m] for m in claim.member_ids])
        assert not any(line in gap for gap in insight.gaps for line in INCIDENT_LINES), insight.gaps
        for t in insight.tensions:  # only a member that negates the shared statement
            assert "disagrees" in t.description and re.search(r"\b(not|no|never|n't|without)\b|n't",
                                                              texts[t.member_ids[0]].lower()), t
        checked += 1
        separate += all(len(c.member_ids) == 1 for c in insight.claims)
    assert checked >= 100 and 0 < separate < checked
