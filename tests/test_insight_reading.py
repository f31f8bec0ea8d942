"""An insight as a prompt reads it (issue 63): its facts, without what render() adds for a reviewer."""

from __future__ import annotations

from graphcons.consolidation.insight import reading, render
from graphcons.consolidation.synthesis.models import Claim, Fact, Insight, Tension


def test_the_reading_is_the_facts_and_the_notes_go_apart():
    ins = Insight(title="Checkout fails after deploys", concept="Checkout fails after deploys. A digest of what 3 "
                  "memories record about checkout: 2 distinct fact(s), held as a hypothesis.",
                  claims=[Claim(statement="Checkout fails after deploys.", member_ids=["m-1", "m-2"])],
                  facts=[Fact(statement="Checkout fails after deploys.", member_ids=["m-1", "m-2"], when="3 May 2026"),
                         Fact(statement="A warm cache avoids it.", member_ids=["m-3"])],
                  tensions=[Tension(description="m-2 says it was the database", member_ids=["m-2"])],
                  gaps=["no second source"], implications=["Warm the cache first."], confidence=0.4)
    _, content = render(ins, member_count=3, sources=["chat"])
    text, apart = reading(content)
    assert text == "3 May 2026: Checkout fails after deploys.\nA warm cache avoids it."
    assert apart["gaps"] == ["no second source"] and apart["implications"] == ["Warm the cache first."]
    assert apart["tensions"] == ["m-2 says it was the database [m-2]"]
    assert apart["epistemic_note"].startswith("Epistemic status: hypothesis (confidence 0.40)")


def test_text_edited_by_hand_is_its_own_reading():
    assert reading("Checkout fails after every deploy until the cache warms.") == \
        ("Checkout fails after every deploy until the cache warms.", {})
