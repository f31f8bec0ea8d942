"""The current value first (issue 51 item 2) and event time on request (issue 47): an applied update
`(newer)-[:SUPERSEDES {reason: 'update', since}]->(older)` leaves the older memory live, and
`retrieve` / `context` never show it before its successor; `as_of` answers with what was current
then; `when` restricts or ranks by the query's time phrase. Real Neo4j, the facade."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest
from current_helpers import FOOD, Q, add, update

from graphcons.core.errors import ValidationError

MODES = [("hybrid", "digest"), ("hybrid", "group"), ("hybrid", "plain"), ("vector", None), ("keyword", None)]


@pytest.fixture
def food(g):
    add(g, FOOD)
    return g


def ids(hits):
    return [h.memory.id for h in hits]


def everything_shown(hits):
    return [i for h in hits for i in [h.memory.id] + [m.memory.id for m in h.members or []]]


def test_a_superseded_memory_is_never_shown_before_its_successor_and_is_marked(food):
    g = food
    before = g.retrieve(Q, k=5, namespace="food", record=False, mode="vector")
    assert ids(before).index("old") < ids(before).index("new")  # the stale value ranks first on its own
    update(g, "new", "old", "2023-05-27T12:00:00+00:00")
    for mode, insights in MODES:
        hits = g.retrieve(Q, k=5, namespace="food", record=False, mode=mode, insights=insights)
        shown = everything_shown(hits)
        assert "old" in shown and shown.index("new") < shown.index("old"), (mode, insights, shown)
        old = next(h for h in hits if h.memory.id == "old")
        assert (old.superseded_by, old.until) == ("new", "2023-05-27T12:00:00+00:00")
        assert old.to_dict()["superseded_by"] == "new" and old.to_dict()["until"] == "2023-05-27T12:00:00+00:00"
        assert "superseded_by" not in next(h for h in hits if h.memory.id == "new").to_dict()
    for mode in ("hybrid", "vector", "keyword"):
        ctx = g.context(Q, 300, namespace="food", record=False, mode=mode)
        assert ctx.ids.index("new") < ctx.ids.index("old"), (mode, ctx.text)
        line = next(ln for ln in ctx.lines if ln.ids == ["old"])
        assert line.text.startswith("earlier, until 27 May 2023: How many Korean") and line.date == "1 May 2023", line
        assert (line.superseded_by, line.until) == ("new", "2023-05-27T12:00:00+00:00")
        assert ctx.words == len(ctx.text.split()) <= 300


def test_the_successor_is_brought_in_when_the_ranking_missed_it_and_the_older_falls_off_first(g):
    add(g, [("old", "I have tried three Korean restaurants in my city.", "2023-05-01"),
            ("new", "Make that four now: the new place on Main Street was great.", "2023-05-27"),
            ("f1", "Korean food is spicy; restaurants in my city serve kimchi for free.", "2023-05-02")])
    update(g, "new", "old", "2023-05-27")
    assert "new" not in ids(g.search("Korean restaurants tried", namespace="food"))  # no keyword list finds it
    hits = g.retrieve("Korean restaurants tried", k=3, namespace="food", record=False, mode="keyword")
    assert "new" in ids(hits) and ids(hits).index("new") == ids(hits).index("old") - 1, ids(hits)
    brought = next(h for h in hits if h.memory.id == "new")
    assert brought.keyword is None  # the keyword list never matched it: it stands in for the older value
    assert brought.score == next(h for h in hits if h.memory.id == "old").score
    one = g.retrieve("three Korean restaurants tried", k=1, namespace="food", record=False, mode="keyword")
    assert ids(one) == ["new"]  # no room for both: the current value, never the stale one alone
    ctx = g.context("Korean restaurants tried", 300, namespace="food", record=False, mode="keyword")
    assert ctx.ids.index("new") < ctx.ids.index("old")
    short = g.context("three Korean restaurants tried", 18, namespace="food", record=False, mode="keyword")
    assert "old" not in short.ids or short.ids.index("new") < short.ids.index("old")


def test_as_of_answers_with_what_was_current_then(food):
    g = food
    update(g, "new", "old", "2023-05-27T12:00:00+00:00")
    for as_of in (date(2023, 5, 10), "2023-05-10", datetime(2023, 5, 27, 11, tzinfo=timezone.utc),
                  "2023-05-27T11:00:00+00:00"):
        hits = g.retrieve(Q, k=5, namespace="food", record=False, as_of=as_of)
        assert "old" in ids(hits) and "new" not in ids(hits), as_of
        assert all(h.superseded_by is None for h in hits)
        ctx = g.context(Q, 300, namespace="food", record=False, as_of=as_of)
        assert "old" in ctx.ids and "new" not in ctx.ids and "earlier" not in ctx.text
    assert set(ids(g.retrieve(Q, k=5, namespace="food", record=False, as_of="2023-05-02"))) == {"old", "f1"}
    later = g.retrieve(Q, k=5, namespace="food", record=False, as_of=date(2023, 5, 27))
    assert ids(later).index("new") < ids(later).index("old")  # a date is its whole day


def test_an_update_that_takes_effect_after_as_of_does_not_count(g):
    add(g, [("lead4", "I lead a team of 4 engineers.", "2023-01-10"),
            ("lead5", "From June I will lead a team of 5 engineers.", "2023-05-20")])
    update(g, "lead5", "lead4", "2023-06-01")
    then = g.retrieve("How many engineers do I lead?", k=2, namespace="food", record=False, as_of="2023-05-25")
    assert set(ids(then)) == {"lead4", "lead5"} and all(h.superseded_by is None for h in then)
    now = g.retrieve("How many engineers do I lead?", k=2, namespace="food", record=False)
    assert ids(now) == ["lead5", "lead4"] and now[1].until == "2023-06-01"
    ctx = g.context("How many engineers do I lead?", 300, namespace="food", record=False)
    assert "earlier, until 1 June 2023: I lead a team of 4 engineers." in ctx.text


@pytest.mark.parametrize("field, kwargs", [
    ("as_of", {"as_of": "last week"}), ("as_of", {"as_of": datetime(2023, 5, 1)}), ("as_of", {"as_of": 20230501}),
    ("when", {"when": "June"}), ("when", {"when": "2023-07/2023-06"}), ("when", {"when": 2023}),
    ("when_mode", {"when": "auto", "when_mode": "only"}), ("when_mode", {"when_mode": "restrict"})])
def test_bad_as_of_or_when_is_refused_naming_the_field(food, field, kwargs):
    for call in (lambda: food.retrieve(Q, record=False, **kwargs), lambda: food.context(Q, record=False, **kwargs)):
        with pytest.raises(ValidationError) as err:
            call()
        assert err.value.field == field


def test_a_reverted_update_changes_nothing(food):
    g = food
    before = [[h.to_dict() for h in g.retrieve(Q, k=5, namespace="food", record=False, mode=m, insights=i)]
              for m, i in MODES]
    ctx_before = g.context(Q, 300, namespace="food", record=False).to_dict()
    update(g, "new", "old", "2023-05-27T12:00:00+00:00", reverted=True)
    after = [[h.to_dict() for h in g.retrieve(Q, k=5, namespace="food", record=False, mode=m, insights=i)]
             for m, i in MODES]
    assert after == before
    assert g.context(Q, 300, namespace="food", record=False).to_dict() == ctx_before


def test_an_update_is_not_a_merge_the_older_memory_stays_a_hit_of_its_own(food):
    g = food
    update(g, "new", "old", "2023-05-27T12:00:00+00:00")
    hits = g.retrieve(Q, k=5, namespace="food", record=False, mode="vector")
    assert all(h.superseded == [] for h in hits)  # no hit landed on another (the merge rule is not applied)
    assert g.get("old").status == "active"


CAMPING = [
    ("lake", "We went camping by the lake with the kids and grilled fish.", "2022-08-14"),
    ("hills", "Camping trip in the hills this weekend, cold nights.", "2023-06-10"),
    ("plan", "I am going camping next month with my brother.", "2023-05-20"),  # event: June 2023
    ("swim", "I swam in the lake every morning.", "2023-06-12"),
]
CQ = "Where did we go camping in June 2023?"


def test_when_auto_restricts_or_boosts_by_the_queries_time_phrase_and_off_turns_it_off(g):
    add(g, CAMPING, namespace="trips")
    default = g.retrieve(CQ, k=4, namespace="trips", record=False, when="off")
    assert default[0].memory.id == "lake"  # by its words the 2022 trip matches best
    # when left out: as "off" while [retrieval] question_time is off (its default; issue 61)
    assert [h.to_dict() for h in g.retrieve(CQ, k=4, namespace="trips", record=False, when=None)] == \
        [h.to_dict() for h in default]
    only = g.retrieve(CQ, k=4, namespace="trips", record=False, when="auto", when_mode="restrict")
    assert set(ids(only)) == {"hills", "plan", "swim"}  # said in June, or said in May about June
    boosted = g.retrieve(CQ, k=4, namespace="trips", record=False, when="auto")
    assert boosted[0].memory.id in {"hills", "plan"} and set(ids(boosted)) == set(ids(default))
    assert [h.score for h in sorted(boosted, key=lambda h: h.memory.id)] == \
        [h.score for h in sorted(default, key=lambda h: h.memory.id)]  # scores stay what the ranking said
    explicit = g.retrieve("camping", k=4, namespace="trips", record=False, when="2022", when_mode="restrict")
    assert ids(explicit) == ["lake"]
    pair = g.retrieve("camping", k=4, namespace="trips", record=False, when=(date(2022, 8, 1), "2022-08-31"),
                      when_mode="restrict")
    assert ids(pair) == ["lake"]
    assert set(ids(g.retrieve("camping", k=4, namespace="trips", record=False, when=date(2023, 6, 10),
                              when_mode="restrict"))) == {"hills", "plan"}  # said that day; planned for June
    ctx = g.context(CQ, 300, namespace="trips", record=False, when="auto", when_mode="restrict")
    assert set(ctx.ids) == {"hills", "plan", "swim"}
    assert "lake" in g.context(CQ, 300, namespace="trips", record=False).ids  # nothing left out by default
    # "last year" against as_of: 2022 as of 2023
    last = g.retrieve("Where did we camp last year?", k=4, namespace="trips", record=False, when="auto",
                      when_mode="restrict", as_of="2023-07-01")
    assert ids(last) == ["lake"]
    nothing = g.retrieve("Where did we camp?", k=4, namespace="trips", record=False, when="auto", when_mode="restrict")
    assert [h.to_dict() for h in nothing] == [h.to_dict() for h in g.retrieve("Where did we camp?", k=4,
                                                                               namespace="trips", record=False)]


def test_explain_shows_the_update_chain(food):
    g = food
    update(g, "new", "old", "2023-05-27T12:00:00+00:00")
    old = g.explain("old")["updates"]
    assert old["superseded_by"] == [{"id": "new", "attribute": "restaurants tried", "since": "2023-05-27T12:00:00+00:00",
                                     "reverted": False, "proposal_id": "test-new", "status": "applied"}]
    assert old["supersedes"] == []
    assert g.explain("new")["updates"]["supersedes"][0]["id"] == "old"
    assert "updates" not in g.explain("f1")  # nothing to say: the answer is as before


def test_a_member_an_insight_carries_is_marked_and_never_shown_before_its_successor(g):
    """Issue 62: an update superseded a member carried under an insight hit ("digest" / "group"): the
    member is marked as a hit would be, and what states the newer value is shown first: before the
    insight when it stands apart, before the member inside the insight when it carries both."""
    from synthesis_helpers import NOW, add_incidents
    cluster = add_incidents(g)
    iid = g.approve(g.synthesize(cluster, now=NOW).proposal_id, by="ana", now=NOW).insight_id
    ins = g.get(iid)
    query = f"{ins.title}. {ins.content}"  # the insight's own text: it ranks first and carries its members
    # "group" carries members; "digest" routes an extractive insight to them (issue 61): they are hits then
    carried = [m.memory.id for m in g.retrieve(query, k=6, mode="vector", insights="group", record=False)[0].members]
    old = carried[0]
    g.add({"id": "fix", "content": "Checkout no longer serves 503 after a deploy: the cache is warmed first now.",
           "subject": "checkout", "source": "oncall-ana", "kind": "incident", "created_at": "2026-11-28T10:00:00+00:00"})
    update(g, "fix", old, "2026-11-28T10:00:00+00:00")
    for mode in ("digest", "group"):
        hits = g.retrieve(query, k=6, mode="vector", insights=mode, record=False)
        shown = everything_shown(hits)
        assert "fix" in shown and old in shown and shown.index("fix") < shown.index(old), (mode, shown)
        member = next(m for h in hits for m in [h, *(h.members or [])] if m.memory.id == old)
        assert (member.superseded_by, member.until) == ("fix", "2026-11-28T10:00:00+00:00")
        assert member.to_dict()["superseded_by"] == "fix"
        assert len(shown) == len(set(shown)) and (mode == "digest" or len(shown) <= 6)
    # both carried by the one insight: the newer one first among its members
    other = next(i for i in carried if i != old)
    newer, older = sorted([old, other], key=lambda i: g.get(i).created_at, reverse=True)
    update(g, newer, older, "2026-11-30T10:00:00+00:00")
    for mode in ("group",):
        hits = g.retrieve(query, k=6, mode="vector", insights=mode, record=False)
        top = next(h for h in hits if h.memory.id == iid)
        members = [m.memory.id for m in top.members]
        assert members.index(newer) < members.index(older), (mode, members)
        assert next(m for m in top.members if m.memory.id == older).superseded_by == newer


def test_as_of_replays_merges_and_deprecations_made_since(g):
    """Issue 62: `as_of` before a merge was applied shows the memory merged away as its own hit (not
    its winner in its place), and a memory deprecated after `as_of` still shows; after them, they
    answer as today."""
    for mid, text, source, day in [
            ("a", "The checkout service returned 503 errors right after deploy 4.2 went out.", "pager", "2023-05-01"),
            ("b", "Right after deploy 4.2 went out, the checkout service returned 503 errors.", "notes", "2023-05-02"),
            ("x", "The checkout cache is warmed by hand before each deploy.", "wiki", "2023-05-03"),
            ("y", "The checkout cache is warmed by the deploy script before traffic switches.", "wiki", "2023-06-05")]:
        g.add({"id": mid, "content": text, "subject": "checkout", "namespace": "ops", "source": source,
               "created_at": f"{day}T12:00:00+00:00"})
    merged_at = datetime(2023, 6, 1, 12, tzinfo=timezone.utc)
    g.merge(dry_run=False, now=merged_at)
    (p,) = g.proposals(kind="merge", status="pending")
    out = g.approve(p["id"], now=merged_at)
    winner, loser = out.winner, out.loser
    g.deprecate("x", replaced_by="y", dry_run=False, now=datetime(2023, 6, 10, 12, tzinfo=timezone.utc))
    assert g.get(loser).status == "deprecated" and g.get("x").status == "deprecated"
    q = "checkout 503 errors after deploy 4.2, and the cache before a deploy"
    for mode in ("hybrid", "vector", "keyword"):
        today = g.retrieve(q, k=4, namespace="ops", record=False, mode=mode)
        assert loser not in ids(today) and "x" not in ids(today), (mode, ids(today))
        then = g.retrieve(q, k=4, namespace="ops", record=False, mode=mode, as_of="2023-05-20")
        assert set(ids(then)) == {"a", "b", "x"}, (mode, ids(then))  # y did not exist; b not yet merged away
        assert all(h.superseded == [] for h in then), mode  # no hit landed on another: the merge came later
        between = g.retrieve(q, k=4, namespace="ops", record=False, mode=mode, as_of="2023-06-07")
        assert set(ids(between)) == {winner, "x", "y"}, (mode, ids(between))  # merged, x not yet deprecated
        later = g.retrieve(q, k=4, namespace="ops", record=False, mode=mode, as_of="2023-06-11")
        assert set(ids(later)) == {winner, "y"}, (mode, ids(later))
    ctx = g.context(q, 300, namespace="ops", record=False, as_of="2023-05-20")
    assert set(ctx.ids) == {"a", "b", "x"}
    assert set(g.context(q, 300, namespace="ops", record=False).ids) == {winner, "y"}
