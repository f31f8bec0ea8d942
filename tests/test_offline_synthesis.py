"""The offline synthesizer writes a digest that states only what its members say (issues 12,
39): a claim and the cluster's distinct facts, each a whole sentence of a member it cites, each
once (restatements folded and cited together), in time order with their dates; incident lines
only for incidents, tensions only where members disagree. Checked on incidents and on real
conversational memories from ../shared/data/memorybank_en.json, with the offline embedder's
cosines as the consolidate job reads them from the store."""

from __future__ import annotations

import json
import os
import re
from datetime import datetime, timezone
from pathlib import Path

import pytest

from graphcons.consolidation.grounding import ground
from graphcons.consolidation.synthesis.offline import OfflineSynthesizer
from graphcons.core.text import tokens
from graphcons.consolidation.synthesis.prompt import Shown, SynthesisPrompt

# ../shared/data next to the checkout, or GRAPHCONS_DEV_DATA (a worktree sits one level deeper)
MEMORYBANK = Path(os.environ.get("GRAPHCONS_DEV_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data") \
    / "memorybank_en.json"
INCIDENT_LINES = ("root cause", "fix, rollback or runbook")


def _synth(embedder, rows, subject, kind="observation", source=None, dates=None):
    members = [Shown(id=mid, title=text, content=text, kind=kind, sources=(source or f"src-{mid}",),
                     created_at=(dates or {}).get(mid)) for mid, text in rows]
    vectors = dict(zip([m.id for m in members], embedder.embed([t for _, t in rows])))
    ids = sorted(vectors)
    cosines = {(a, b): float(sum(x * y for x, y in zip(vectors[a], vectors[b]))) for i, a in enumerate(ids)
               for b in ids[i + 1:]}
    prompt = SynthesisPrompt(members=members, subject=subject, cosines=cosines)
    out = OfflineSynthesizer().synthesize(prompt)
    assert out.insight is not None, out.no_pattern  # two members with text always get a digest
    ground(out.insight, out.themes, prompt.member_ids, {m.id: m.sources for m in members})  # raises if ungrounded
    return out.insight, dict(rows)


def _words(text):
    return {s for s, _ in tokens(text)}


def _said_by_a_cited_member(statement, member_ids, texts):
    """Extractive: the statement is the whole text, or whole sentences, of one member it cites."""
    return any(statement == texts[m] or statement in texts[m] and texts[m].startswith(statement)
               for m in member_ids)


def _check_digest(insight, texts):
    lines = [*insight.claims, *insight.facts]
    for line in lines:
        assert _said_by_a_cited_member(line.statement, line.member_ids, texts), (line, texts)
        assert "They also share" not in line.statement and "Recurring detail" not in line.statement
    facts = [m for f in insight.facts for m in f.member_ids]
    assert len(facts) == len(set(facts))  # a member's fact is stated once
    assert len({f.statement for f in insight.facts}) == len(insight.facts)  # no fact twice
    assert set(insight.claims[0].member_ids) <= set(facts)  # the claim is one of the facts, with its date


def test_three_different_facts_about_one_person_are_a_digest_of_three_dated_facts(embedder):
    rows = [("a1", "Andrew is planning to go birdwatching next weekend."),
            ("a2", "Andrew loves eagles, they are his favourite birds."),
            ("a3", "Andrew hosted a board game night with friends.")]
    dates = {"a1": datetime(2023, 5, 8, tzinfo=timezone.utc), "a2": datetime(2023, 4, 1, tzinfo=timezone.utc),
             "a3": datetime(2023, 6, 2, tzinfo=timezone.utc)}
    insight, texts = _synth(embedder, rows, "Andrew", source="chat", dates=dates)
    _check_digest(insight, texts)
    assert sorted(m for f in insight.facts for m in f.member_ids) == ["a1", "a2", "a3"]
    assert [f.when for f in insight.facts] == ["1 April 2023", "8 May 2023", "2 June 2023"]  # in time order


def test_restatements_fold_into_one_fact_citing_them_all(embedder):
    insight, texts = _synth(embedder, [("pd-1", "The Atlas project deadline is Friday."),
                                     ("pd-2", "The client confirmed the Atlas project deadline is Friday."),
                                     ("pd-3", "The deadline of the Atlas project is Friday."),
                                     ("pd-4", "Lunch on Thursday will be pizza for the whole team.")],
                            "project-atlas", kind="fact")
    _check_digest(insight, texts)
    assert insight.claims[0].member_ids == ["pd-1", "pd-2", "pd-3"]  # the most central fact, said three times
    assert "deadline" in insight.claims[0].statement and "deadline" in insight.title
    assert [f.member_ids for f in insight.facts if "pd-4" in f.member_ids] == [["pd-4"]]
    assert insight.tensions == []
    assert not any(line in gap for gap in insight.gaps for line in INCIDENT_LINES)


def test_incidents_get_incident_gaps_and_only_a_negating_member_is_a_tension(embedder):
    rows = [("x1", "The deploy did not cause 503 errors on checkout."),
            ("x2", "503 errors on checkout after the deploy."),
            ("x3", "Checkout 503 errors began after deploy 4.5."),
            ("x4", "Checkout served 503 errors after deploy 4.6 for ten minutes.")]
    insight, texts = _synth(embedder, rows, "checkout", kind="incident")
    _check_digest(insight, texts)
    assert "503" in insight.claims[0].statement
    assert all(t.member_ids[0] == "x1" for t in insight.tensions)  # only the member that negates
    assert any("root cause" in gap for gap in insight.gaps)


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


def test_on_memorybank_every_line_is_a_cited_members_sentence_and_no_fact_is_said_twice(embedder):
    checked = 0
    for user, rows in _memorybank_groups():
        insight, texts = _synth(embedder, rows, user, source=f"chat-{user}")
        checked += 1
        _check_digest(insight, texts)
        assert not any(line in gap for gap in insight.gaps for line in INCIDENT_LINES), insight.gaps
        for t in insight.tensions:  # only a member that negates what its group states
            assert "disagrees" in t.description and re.search(r"\b(not|no|never|n't|without)\b|n't",
                                                              texts[t.member_ids[0]].lower()), t
    assert checked >= 100


def test_a_cluster_of_unrelated_facts_gets_a_digest_proposal_whose_facts_carry_their_dates(g):
    from synthesis_helpers import NOW, add_incidents
    cluster = add_incidents(g, rows=[("u1", "Andrew is planning to go birdwatching next weekend.", "chat", "2026-11-02"),
                                     ("u2", "Andrew loves eagles, they are his favourite birds.", "chat", "2026-11-03"),
                                     ("u3", "Andrew hosted a board game night with friends.", "chat", "2026-11-04")],
                            subject="Andrew", kind="observation")
    out = g.synthesize(cluster, now=NOW)
    assert out.status == "proposed"
    iid = g.approve(out.proposal_id, by="ana", now=NOW).insight_id
    content = g.get(iid).content
    for day, text in (("2 November 2026", "birdwatching"), ("3 November 2026", "eagles"), ("4 November 2026", "board game")):
        assert any(day in line and text in line for line in content.splitlines()), content
    assert g.synthesize(cluster, now=NOW).status == "unchanged"  # settled until the membership changes


def test_a_facts_date_is_that_of_the_member_whose_text_it_shows(g):
    """Issue 50 item 8: "9 November 2026: Again 503 after deploy 4.4 ..." showed the 23 November
    member's text with the 9 November member's date. Each dated line of the digest is one member's
    sentence, dated by that member."""
    from synthesis_helpers import INCIDENTS, NOW, add_incidents
    cluster = add_incidents(g)
    iid = g.approve(g.synthesize(cluster, now=NOW).proposal_id, by="ana", now=NOW).insight_id
    days = {text: datetime.fromisoformat(day).strftime("%-d %B %Y") for _, text, _, day in INCIDENTS}
    dated = [line for line in g.get(iid).content.splitlines() if re.match(r"^\s*(?:- )?\d{1,2} \w+ \d{4}: ", line)]
    assert dated, g.get(iid).content
    for line in dated:
        # a fact line ends with its members [..], a claim line (dated too, issue 48) with (confirmed ..; members ..)
        day, said = re.match(r"^\s*(?:- )?(\d{1,2} \w+ \d{4}): (.*?)(?: \[[^\]]*\]| \(confirmed [^)]*\))?$",
                             line).groups()
        shown = [text for text in days if said.rstrip(".") in text]
        assert shown and day == days[shown[0]], (line, days)
