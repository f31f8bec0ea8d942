"""Issue 48: an insight's line keeps its own member's date, is confirmed only by the members that state
it, and nothing the model wrote disappears unlisted (the local model's conv-26 digests,
bench/llm/results/llm-synthesis.json)."""

from datetime import datetime, timedelta, timezone
from functools import partial

from graphcons.consolidation.grounding import ground, stating, subject_words
from graphcons.consolidation.insight import render
from graphcons.consolidation.synthesis.models import Claim, Fact, Insight

T0 = datetime(2023, 1, 1, tzinfo=timezone.utc)
# conv-26, Melanie: the session of each observation (a session a week, as bench.llm.models dates them)
MELANIE = {
    "1.Melanie.0": (1, "Melanie is currently managing kids and work and finds it overwhelming."),
    "10.Melanie.3": (10, "Melanie treasures the memory of her youngest child taking her first steps."),
    "11.Melanie.1": (11, "Melanie values special moments with her kids and is grateful for them."),
    "11.Melanie.2": (11, "Melanie appreciates cultivating a loving and accepting environment for her kids."),
    "14.Melanie.2": (14, "Melanie volunteered with her family at a homeless shelter to make a difference."),
}
TEXTS = {i: t for i, (_, t) in MELANIE.items()}
CREATED = {i: T0 + timedelta(days=7 * s) for i, (s, _) in MELANIE.items()}
SOURCES = {i: (f"D{i.split('.')[0]}:{n}",) for n, i in enumerate(MELANIE)}
ALL = list(MELANIE)


def _grounded(claims, facts=(), implications=()):
    insight = Insight(title="t", concept="c", confidence=0.9, claims=list(claims), facts=list(facts),
                      implications=list(implications))
    g = ground(insight, None, ALL, SOURCES, texts=TEXTS, subject="Melanie")
    g.insight = g.insight.dated(CREATED, TEXTS, partial(stating, ignore=subject_words("Melanie")))
    return g


def test_a_fact_keeps_the_date_of_the_member_that_states_it():
    # the model cited all five for the fact only 10.Melanie.3 states: it was stored as 8 January
    # (1.Melanie.0's session) instead of 12 March
    g = _grounded([Claim(statement=TEXTS["1.Melanie.0"], member_ids=ALL)],
                  [Fact(statement="Melanie treasures the memory of her youngest child taking her first steps.",
                        member_ids=ALL)])
    assert [f.when for f in g.insight.facts] == ["12 March 2023"]
    assert g.insight.claims[0].when == "8 January 2023"
    assert "- 8 January 2023: Melanie is currently managing" in render(g.insight, member_count=5, sources=["x"])[1]


def test_since_takes_the_earliest_stating_member_and_currently_the_latest():
    texts = {"a": "Ana works at the bakery on Main Street.", "b": "Ana still works at the bakery on Main Street.",
             "c": "Ana bought a bicycle."}
    created = {"a": T0, "b": T0 + timedelta(days=30), "c": T0 + timedelta(days=60)}
    insight = Insight(title="t", concept="c", confidence=0.5,
                      claims=[Claim(statement="Ana works at the bakery on Main Street.", member_ids=["a", "b", "c"])],
                      facts=[Fact(statement="Ana currently works at the bakery on Main Street.",
                                  member_ids=["a", "b", "c"])])
    dated = insight.dated(created, texts, partial(stating, ignore={"ana"}))
    assert dated.claims[0].when == "1 January 2023"  # since: the earliest member stating it
    assert dated.facts[0].when == "31 January 2023"  # currently: the latest, never c's (it says nothing of it)


def test_confirmations_count_only_the_members_that_state_the_claim():
    # the model's claim cited five members: two share no word with it, two share only "kids"
    g = _grounded([Claim(statement="Melanie is currently managing kids and work and finds it overwhelming.",
                         member_ids=ALL)], [Fact(statement=TEXTS["10.Melanie.3"], member_ids=["10.Melanie.3"])])
    claim = g.insight.claims[0]
    assert claim.confirmations == 1  # only 1.Melanie.0 says it
    assert claim.member_ids == ["1.Melanie.0", "11.Melanie.1", "11.Melanie.2"]  # kids: cited, not confirming
    assert set(g.unsupported) == {"10.Melanie.3", "14.Melanie.2"}


def test_repeated_implications_and_halves_of_one_member_are_folded_and_every_drop_is_listed():
    claim = TEXTS["1.Melanie.0"]
    g = _grounded([Claim(statement=claim, member_ids=["1.Melanie.0"])],
                  [Fact(statement="Melanie values special moments with her kids.", member_ids=["11.Melanie.1"]),
                   Fact(statement="Melanie is grateful for special moments.", member_ids=["11.Melanie.1"]),
                   Fact(statement="Melanie ran a marathon in Boston last spring.", member_ids=["14.Melanie.2"]),
                   Fact(statement="Melanie's kids go to school.", member_ids=["m-unknown"])],
                  [claim, claim, "Families who volunteer together build stronger bonds."])
    assert [f.statement for f in g.insight.facts] == [
        "Melanie values special moments with her kids. Melanie is grateful for special moments."]
    assert g.insight.implications == ["Families who volunteer together build stronger bonds."]
    report = g.report()
    assert report["dropped_claims"] == 2  # the fact no member holds, the fact citing nothing shown
    assert sorted((d["kind"], d["reason"].split(":")[0].split(" (")[0]) for d in report["dropped"]) == [
        ("fact", "cites no member it was shown"), ("fact", "folded"),
        ("fact", "its cited members hold 17% of its content words"),
        ("implication", "folded"), ("implication", "folded")]
