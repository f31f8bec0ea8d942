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
    if out.insight is None:  # no pattern: nothing to ground
        assert out.no_pattern
        return None, dict(rows)
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


def test_three_different_facts_about_one_person_are_no_insight():
    insight, _ = _synth([("a1", "Andrew is planning to go birdwatching next weekend."),
                         ("a2", "Andrew loves eagles, they are his favourite birds."),
                         ("a3", "Andrew hosted a board game night with friends.")], "Andrew", source="chat")
    assert insight is None  # nothing shared beyond the name: a group of facts is not an insight (issue 28)


def test_the_title_and_first_sentence_state_the_claim_and_filler_is_no_detail():
    insight, texts = _synth([("c1", "Caroline said the pottery class was right fun, she made a bowl."),
                             ("c2", "Caroline went to the pottery class again and it was right relaxing."),
                             ("c3", "Caroline showed the pottery class her bowl, right after lunch.")], "Caroline")
    assert "pottery class" in insight.title.lower()
    assert insight.concept.lower().startswith("pottery class")  # the first sentence is the claim itself
    assert not any(c.statement.startswith("Recurring detail: right") for c in insight.claims)
    assert all(_supported(c, texts, "Caroline") for c in insight.claims)


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
        checked += 1
        if insight is None:  # no statement shared: no insight at all
            separate += 1
            continue
        for claim in insight.claims:
            assert _supported(claim, texts, user), (user, claim.statement, [texts[m] for m in claim.member_ids])
        assert not any(line in gap for gap in insight.gaps for line in INCIDENT_LINES), insight.gaps
        for t in insight.tensions:  # only a member that negates the shared statement
            assert "disagrees" in t.description and re.search(r"\b(not|no|never|n't|without)\b|n't",
                                                              texts[t.member_ids[0]].lower()), t
        assert len(insight.claims[0].member_ids) >= 2  # an insight's main claim is shared
    assert checked >= 100 and 0 < separate < checked


def test_a_cluster_of_unrelated_facts_is_recorded_no_pattern_and_not_retried(g):
    from synthesis_helpers import NOW, add_incidents, proposals_count
    cluster = add_incidents(g, rows=[("u1", "Andrew is planning to go birdwatching next weekend.", "chat", "2026-11-02"),
                                     ("u2", "Andrew loves eagles, they are his favourite birds.", "chat", "2026-11-03"),
                                     ("u3", "Andrew hosted a board game night with friends.", "chat", "2026-11-04")],
                            subject="Andrew", kind="observation")
    out = g.synthesize(cluster, now=NOW)
    assert out.status == "no_pattern" and out.proposal_id is None and "no pattern" in out.reason
    assert proposals_count(g) == 0
    assert g.synthesize(cluster, now=NOW).status == "unchanged"  # settled until the membership changes
    g.edit("u1", content="Andrew is planning to go birdwatching next weekend with Anna.")
    assert g.synthesize(cluster, now=NOW).status == "no_pattern"  # changed: looked at again
