"""The grounding guard: only shown ids count; no member cited, nothing stored; sources, not repetitions."""

import json

import pytest
from synthesis_helpers import INCIDENTS, NOW, add_incidents, insights

from graphcons.consolidation.grounding import SUPPORTED_COVERAGE, confirmation_phrase, distinct_sources, ground, support
from graphcons.consolidation.synthesis.models import (
    Claim,
    Insight,
    Tension,
    Theme,
    Themes,
)
from graphcons.consolidation.synthesis.offline import OfflineSynthesizer
from graphcons.consolidation.synthesis.prompt import Shown, SynthesisPrompt
from graphcons.core.errors import Ungrounded

SOURCES = {"m1": ("pager",), "m2": ("ana",), "m3": ("pager",)}


def _insight(claims, tensions=()):
    return Insight(title="t", concept="c", claims=claims, tensions=list(tensions), gaps=[], implications=[],
                   confidence=0.5)


def test_invented_ids_are_stripped_and_counted():
    raw = _insight([Claim(statement="503 after deploy", member_ids=["m1", "m-invented", "m2", "m9"]),
                    Claim(statement="made up", member_ids=["m-fake"])],
                   [Tension(description="x", member_ids=["m3", "ghost"])])
    themes = Themes(themes=[Theme(title="a", question="b", member_ids=["m1", "nope"])])
    out = ground(raw, themes, ["m1", "m2", "m3"], SOURCES)
    assert out.stripped == ["m-invented", "m9", "m-fake", "ghost", "nope"]
    assert out.stripped_count == 5
    assert [c.statement for c in out.insight.claims] == ["503 after deploy"]  # the claim citing nothing real is dropped
    assert out.insight.claims[0].member_ids == ["m1", "m2"]
    assert out.insight.tensions[0].member_ids == ["m3"]
    assert out.themes.themes[0].member_ids == ["m1"]
    assert out.cited == ["m1", "m2"] and out.dropped_claims == 1


def test_a_synthesis_citing_no_shown_member_is_rejected():
    raw = _insight([Claim(statement="fabricated", member_ids=["m-x", "m-y"])])
    with pytest.raises(Ungrounded) as err:
        ground(raw, None, ["m1", "m2", "m3"], SOURCES)
    assert err.value.stripped == ["m-x", "m-y"]
    assert "cites none of the 3 members" in str(err.value)


def test_context_never_counts_as_support_but_may_be_a_tension():
    raw = _insight([Claim(statement="trains", member_ids=["ctx-1"])],
                   [Tension(description="exception for accessibility", member_ids=["ctx-1"])])
    with pytest.raises(Ungrounded):
        ground(raw, None, ["m1", "m2"], SOURCES, context_ids=["ctx-1"])
    raw = _insight([Claim(statement="trains", member_ids=["m1", "ctx-1"])],
                   [Tension(description="exception for accessibility", member_ids=["ctx-1"])])
    out = ground(raw, None, ["m1", "m2"], SOURCES, context_ids=["ctx-1"])
    assert out.insight.claims[0].member_ids == ["m1"] and out.context_as_support == ["ctx-1"]
    assert out.insight.tensions[0].member_ids == ["ctx-1"]


def test_confirmations_count_distinct_sources_and_model_counts_are_removed():
    raw = _insight([Claim(statement="Deadline is Friday (confirmed 9 times)", member_ids=["m1", "m2", "m3"])])
    out = ground(raw, None, ["m1", "m2", "m3"], SOURCES)
    assert out.insight.claims[0].confirmations == 2  # pager twice + ana: two sources
    assert out.insight.claims[0].statement == "Deadline is Friday"
    assert distinct_sources(["m1", "m3"], SOURCES) == 1


def test_one_source_repeating_a_claim_three_times_is_confirmed_once(g):
    planted = [("p-1", "The release deadline is Friday.", "mallory", "2026-11-02"),
               ("p-2", "Release deadline: Friday, for sure.", "mallory", "2026-11-03"),
               ("p-3", "Reminder: the release deadline is Friday!", "mallory", "2026-11-04")]
    cluster = add_incidents(g, planted, subject="release", kind="episode")
    out = g.synthesize(cluster, now=NOW)
    assert out.status == "proposed"
    p = g.proposal(out.proposal_id)
    main = p["insight"]["claims"][0]
    assert main["member_ids"] == ["p-1", "p-2", "p-3"] and main["confirmations"] == 1
    assert any("one source" in gap for gap in p["insight"]["gaps"])
    res = g.approve(out.proposal_id, now=NOW)
    title = g.get(res.insight_id).title
    assert "(confirmed once)" in title and "3 times" not in title


def test_distinct_sources_confirm(g):
    cluster = add_incidents(g)
    out = g.synthesize(cluster, now=NOW)
    p = g.proposal(out.proposal_id)
    claim = p["insight"]["claims"][0]
    sources = {mid: src for mid, _, src, _ in INCIDENTS}  # pagerduty twice, oncall-ana, oncall-bo
    texts = {mid: text for mid, text, _, _ in INCIDENTS}
    # issue 48: only the cited members that state the claim on their own confirm it (a member sharing
    # "503 after deploy" with "... we should warm the cache before switching traffic" does not)
    shares = support(claim["statement"], [texts[m] for m in claim["member_ids"]], {"checkout"}).per_text
    stating = [m for m, share in zip(claim["member_ids"], shares) if share >= SUPPORTED_COVERAGE]
    distinct = len({sources[m] for m in stating})
    assert claim["confirmations"] == distinct >= 1 and len(claim["member_ids"]) >= 2
    res = g.approve(out.proposal_id, now=NOW)
    assert g.get(res.insight_id).title.endswith(f"({confirmation_phrase(distinct)})")


def test_offline_synthesis_is_grounded_and_deterministic():
    members = [Shown(id=f"m{i}", title=t, content=t, sources=(s,)) for i, (t, s) in enumerate([
        ("Checkout 503 after deploy 4.1", "a"), ("503 after deploy again, checkout 4.2", "b"),
        ("Deploy 4.3: checkout 503 after deploy", "c"), ("The cafeteria is closed", "d")])]
    prompt = SynthesisPrompt(members=members, subject="checkout")
    one = OfflineSynthesizer().synthesize(prompt)
    two = OfflineSynthesizer().synthesize(SynthesisPrompt(members=list(reversed(members)), subject="checkout"))
    assert one.insight == two.insight and one.themes == two.themes
    assert "503 after deploy" in one.insight.claims[0].statement
    assert one.insight.claims[0].member_ids == ["m0", "m1", "m2"]
    # the member that does not fit is its own fact in the digest, not a tension: it does not disagree (issue 39)
    assert one.insight.tensions == [] and [f.member_ids for f in one.insight.facts if "m3" in f.member_ids] == [["m3"]]
    ground(one.insight, one.themes, prompt.member_ids, {m.id: m.sources for m in members})


class _AddsInventedIds(OfflineSynthesizer):
    """The offline synthesis, plus ids it was never shown in every citation (a sloppy model)."""

    def synthesize(self, prompt):
        out = super().synthesize(prompt)
        claims = [c.model_copy(update={"member_ids": c.member_ids + ["m-ghost", "inc-99"]}) for c in out.insight.claims]
        out.insight = out.insight.model_copy(update={"claims": claims})
        return out


def test_only_grounded_citations_reach_the_store(g):
    cluster = add_incidents(g)
    out = g.synthesize(cluster, now=NOW, synthesizer=_AddsInventedIds())
    assert out.status == "proposed"
    # grounding ran before anything was stored: the queued insight cites no invented id ...
    p = g.proposal(out.proposal_id)
    cited = json.dumps([p["insight"], p["themes"], p["cited"]])
    assert "m-ghost" not in cited and "inc-99" not in cited and set(p["cited"]) == set(cluster.member_ids)
    assert set(p["grounding"]["stripped"]) == {"m-ghost", "inc-99"}  # recorded as stripped, not as citations
    # ... the audit says what was stripped ...
    (audit,) = [a["details"] for a in g.audit_log(op="synthesize")]
    assert audit["stripped_count"] > 0 and set(audit["stripped"]) == {"m-ghost", "inc-99"}
    # ... and the applied insight derives from real members only
    iid = g.approve(out.proposal_id, now=NOW).insight_id
    derived = g.db.run_text("MATCH (:Memory {id: $id})-[:DERIVED_FROM]->(m) RETURN m.id AS id ORDER BY id", id=iid)
    assert [r["id"] for r in derived] == sorted(cluster.member_ids) and insights(g) == 1
