"""Grounded means supported (issue 40): each statement's cited memories must hold its words."""

import json
import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

from graphcons.consolidation.grounding import (
    SUPPORTED_COVERAGE,
    claim_words,
    ground,
    support,
    supports,
)
from graphcons.consolidation.synthesis.models import Claim, Fact, Insight, Reflection, Statement
from graphcons.core.text import content_terms
from graphcons.profiles.offline_reflection import extract
from graphcons.profiles.reflection_grounding import ground_reflection
from graphcons.consolidation.synthesis.prompt import ReflectionPrompt, Shown
from graphcons.core.errors import Ungrounded

LABELS = Path(__file__).parent / "data" / "support_labels.jsonl"

# John Zhang's memories as MemoryBank has them, in id order (issue 40's example)
JOHN = {
    "j1": "Hi, friend! I recently learned some street dance and it feels really fun! Do you have any favorite dance styles?",
    "j2": "I like sunny and warm weather. Did you have any new tasks yesterday?",
    "j3": "Hello, friend! Today I learned a new dish called Western steak with pepper sauce. I like Western cuisine.",
    "j4": "OK, thanks for sharing. I have to go now, talk to you later.",
}


def _reflection(**categories):
    return Reflection(summary="", **{c: [Statement(statement=s, memory_ids=ids) for s, ids in items]
                                     for c, items in categories.items()})


def test_the_threshold_holds_on_the_hand_labelled_statements():
    rows = [json.loads(line) for line in LABELS.read_text().splitlines()][1:]
    assert len(rows) >= 100 and {r["label"] for r in rows} == {"supported", "unsupported", "chat"}
    tp = fp = fn = 0
    for r in rows:
        cov = support(r["statement"], r["cited"], content_terms(r["subject"])).coverage
        kept = cov is not None and cov >= SUPPORTED_COVERAGE
        tp += kept and r["label"] == "supported"
        fp += kept and r["label"] != "supported"
        fn += not kept and r["label"] == "supported"
    assert tp / (tp + fp) >= 0.9 and tp / (tp + fn) >= 0.85, (tp, fp, fn)


def test_one_generic_shared_word_is_no_support():
    assert claim_words("John Zhang likes Western cuisine.", content_terms("John Zhang")) == \
        content_terms("western cuisine")
    assert support("John Zhang likes Western cuisine.", [JOHN["j2"]], content_terms("John Zhang")).verdict == \
        "unsupported"
    assert not supports(content_terms("western cuisine"), JOHN["j2"])  # "like" is no longer a shared word


def test_a_statement_citing_the_neighbour_of_the_right_memory_is_dropped_with_its_reason():
    refl = _reflection(preferences=[("John Zhang likes Western cuisine.", ["j2"]),
                                    ("John Zhang likes street dance and Western cuisine.", ["j1", "j2", "j3"])])
    out = ground_reflection(refl, list(JOHN), texts=JOHN, subject="John Zhang")
    assert [d["statement"] for d in out.dropped] == ["John Zhang likes Western cuisine."]
    assert "hold 0 of its 2 content words" in out.dropped[0]["reason"]
    kept = out.reflection.preferences
    assert [(s.statement, s.memory_ids) for s in kept] == [("John Zhang likes street dance and Western cuisine.",
                                                            ["j1", "j3"])]  # the neighbour j2 is stripped
    assert out.unsupported == ["j2"] and out.report()["dropped"][0]["memory_ids"] == ["j2"]


def test_a_copy_of_one_memory_is_a_fact_marked_restated():
    refl = _reflection(preferences=[("John Zhang likes sunny and warm weather.", ["j2", "j4"])])
    out = ground_reflection(refl, list(JOHN), texts=JOHN, subject="John Zhang")
    assert out.reflection.preferences == []
    assert [(s.statement, s.memory_ids, s.restated) for s in out.reflection.facts] == [
        ("John Zhang likes sunny and warm weather.", ["j2"], "j2")]
    assert out.report()["restated"] == 1
    # two memories saying it is a generalisation, not a copy
    both = {"a": "I like warm weather.", "b": "Warm weather makes my day."}
    kept = ground_reflection(_reflection(preferences=[("likes warm weather", ["a", "b"])]), ["a", "b"], texts=both)
    assert kept.reflection.preferences[0].restated is None and kept.reflection.preferences[0].memory_ids == ["a", "b"]


def test_chat_formulas_are_not_facts_and_a_statement_appears_once_across_categories():
    refl = _reflection(preferences=[("John Zhang enjoys street dance.", ["j1"])],
                       behaviors=[("OK, thanks for sharing. I have to go now, talk to you later.", ["j4"]),
                                  ("John Zhang has learned street dance. Do you have any favorite dance styles?",
                                   ["j1"])],
                       facts=[("John Zhang: street dance, enjoys!", ["j1"])])
    out = ground_reflection(refl, list(JOHN), texts=JOHN, subject="John Zhang")
    said = [s.statement for _, s in out.reflection.statements()]
    assert not any("thanks" in s or "?" in s for s in said)
    # issue 48: a statement holding a chat line is dropped whole, never cut down to a fragment
    assert [(d["statement"], d["reason"].split(" (")[0]) for d in out.dropped] == [
        ("OK, thanks for sharing. I have to go now, talk to you later.", "a chat line"),
        ("John Zhang has learned street dance. Do you have any favorite dance styles?", "a chat line")]
    folded = [j for j in out.judged if j.outcome == "folded"]
    assert [j.statement for j in folded] == ["John Zhang: street dance, enjoys!"]  # same words, another category
    assert said == ["John Zhang enjoys street dance."]


def test_a_model_check_keeps_a_generalisation_only_on_quotes_that_hold_all_of_it():
    """Issue 48 item 1: the model quotes the shortest span that says the statement; a quote counts only
    when it is really in a cited memory, the quotes must hold the statement by the coverage rule, and a
    statement kept on them says nothing beyond them (a quote sharing one word proves nothing)."""
    texts = {"a": "I walk along the river every evening after work.", "b": "I like warm weather.",
             "c": "My sister lives in Lyon."}
    refl = _reflection(preferences=[("Ana likes warm weather and walks along the river.", ["a", "b"])])
    asked = []

    def answering(*quotes):
        def check(statement, cited):
            asked.append((statement, sorted(cited)))
            return list(quotes)
        return check

    out = ground_reflection(refl, list(texts), texts=texts, subject="Ana",
                            check=answering(("a", "walk along the river"), ("b", "warm weather")))
    assert out.judged[0].check == "quoted" and out.reflection.preferences[0].memory_ids == ["a", "b"]
    assert asked == [("Ana likes warm weather and walks along the river.", ["a", "b"])]
    # invented words, or a real quote sharing one word: no support
    for quotes in ([("a", "I love walking by rivers in warm weather")], [("b", "I like warm weather.")]):
        with pytest.raises(Ungrounded):
            ground_reflection(refl, list(texts), texts=texts, subject="Ana", check=answering(*quotes))
    # real quotes holding most of it, not all: the statement says more than they do
    more = _reflection(preferences=[("Ana likes warm weather and walks along the river with her sister.",
                                     ["a", "b", "c"])])
    with pytest.raises(Ungrounded, match="states more than the model's quotes hold"):
        ground_reflection(more, list(texts), texts=texts, subject="Ana",
                          check=answering(("a", "walk along the river"), ("b", "warm weather")))
    # a copy of one memory is not checked; nor is a statement its memories do not hold (no quote could)
    asked.clear()
    copy = _reflection(facts=[("Ana's sister lives in Lyon.", ["c"]), ("Ana sails on weekends.", ["a"])])
    out = ground_reflection(copy, list(texts), texts=texts, subject="Ana", check=answering())
    assert asked == [] and [s.restated for s in out.reflection.facts] == ["c"]
    # no stored answer (a replay): the words decide alone
    out = ground_reflection(refl, list(texts), texts=texts, subject="Ana", check=lambda statement, cited: None)
    assert out.judged[0].check is None and out.reflection.preferences[0].memory_ids == ["a", "b"]


def test_an_insight_whose_claims_only_copy_one_member_is_not_an_insight():
    texts = {"m1": "The checkout service returned 503 after the Friday deploy.",
             "m2": "Payments timed out for ten minutes on Tuesday.", "m3": "Disk full on the build agent."}
    copy = Insight(title="t", concept="c", confidence=0.5,
                   claims=[Claim(statement="The checkout service returned 503 after the Friday deploy",
                                 member_ids=["m1", "m2"])])
    with pytest.raises(Ungrounded, match="only restates one member"):
        ground(copy, None, list(texts), {}, texts=texts)
    # a digest (issue 39) states several members' facts, each in its own member's words: not a copy
    digest = copy.model_copy(update={"facts": [Fact(statement=texts["m1"], member_ids=["m1"]),
                                               Fact(statement=texts["m2"], member_ids=["m2"]),
                                               Fact(statement="The build agent ran out of memory.", member_ids=["m3"])]})
    kept = ground(digest, None, list(texts), {}, texts=texts).insight
    assert [f.member_ids for f in kept.facts] == [["m1"], ["m2"]]  # the fact m3 does not hold is dropped
    pattern = Insight(title="t", concept="c", confidence=0.5,
                      claims=[Claim(statement="checkout 503 after deploy", member_ids=["m1", "m3"]),
                              Claim(statement="deploys break checkout", member_ids=["m1"])])
    both = dict(texts, m3="Checkout 503 again after the deploy on Monday.")
    out = ground(pattern, None, list(both), {}, texts=both)
    assert [c["restated"] for c in out.report()["claim_support"]] == [None, None]


def test_an_insight_line_keeps_only_the_citations_that_hold_its_words():
    # the local model's digest of conv-26 (bench/llm/results/llm-synthesis.json): each fact cited the
    # claim's member beside its own; sharing only the subject's name is no support
    texts = {"c1": "The support group has made Caroline feel accepted and given her courage to embrace herself.",
             "c2": "Caroline finds nature refreshing and discussed how it can bring peace.",
             "c3": "Caroline expressed feeling comforted by being around accepting and loving people."}
    insight = Insight(title="t", concept="c", confidence=0.5,
                      claims=[Claim(statement=texts["c1"], member_ids=["c1", "c2"])],
                      facts=[Fact(statement=texts["c2"], member_ids=["c1", "c2"]),
                             Fact(statement="Caroline feels comforted and accepted by loving people.",
                                  member_ids=["c1", "c2", "c3"])])
    out = ground(insight, None, list(texts), {}, texts=texts, subject="Caroline")
    assert [c.member_ids for c in out.insight.claims] == [["c1"]]  # a copy rests on what it copies
    assert [f.member_ids for f in out.insight.facts] == [["c2"], ["c1", "c3"]]  # c2 holds none of its words
    assert out.report()["unsupported_citations"] == ["c2", "c1"] and out.cited == ["c1", "c2", "c3"]


def _prompt(texts, subject="user-ana", titles=None):
    t0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
    return ReflectionPrompt(members=[Shown(id=i, title=(titles or {}).get(i, ""), content=t, created_at=t0,
                                           kind="observation") for i, t in texts.items()], subject=subject,
                            namespace="t")


def test_the_offline_reflector_cites_only_what_a_statement_was_taken_from_and_keeps_sentences_whole():
    long = ("Ana flies from Lisbon to Berlin through Frankfurt; the connection there is always tight, so she books "
            "the longest layover on offer.")
    texts = {"t1": "Ana prefers the aisle seat on long flights.", "t2": "Ana asks for the vegetarian meal on flights.",
             "t3": "Ana avoids red-eye flights when she can.", "t4": long,
             "t5": "Ana prefers window seats on short flights."}
    titles = {"t4": long[:70].rsplit(" ", 1)[0] + "…"}  # a derived title: the first sentence, cut
    refl = extract(_prompt(texts, titles=titles))
    said = [s for _, s in refl.statements()]
    for s in said:
        words = claim_words(s.statement, content_terms("user ana"))
        assert all(supports(words, texts[i]) for i in s.memory_ids), s
        assert all(support(s.statement, [texts[i]], {"ana"}).verdict == "supported" for i in s.memory_ids), s
    frankfurt = [s.statement for s in said if "Frankfurt" in s.statement]
    assert frankfurt == [long.rstrip(".")]  # once, whole (not cut at ";", not the title's cut copy)


def test_the_offline_reflector_on_memorybank_users_cites_no_memory_sharing_no_word():
    path = Path(os.environ.get("GRAPHCONS_DEV_DATA") or "/work/shared/data") / "memorybank_en.json"
    if not path.is_file():
        pytest.skip("no MemoryBank dev data (../shared/data)")
    data = json.loads(path.read_text())
    for user in sorted(data)[:3]:
        texts = {f"{day}-{n}": t["query"].strip() for day, turns in sorted(data[user]["history"].items())
                 for n, t in enumerate(turns) if t.get("query", "").strip()}
        texts = dict(list(texts.items())[-15:])
        refl = extract(_prompt(texts, subject=user))
        assert refl.statements()
        for _, s in refl.statements():
            words = claim_words(s.statement, content_terms(user))
            assert words and all(supports(words, texts[i]) for i in s.memory_ids), (user, s)
            assert "?" not in s.statement and "thanks" not in s.statement.lower()


def test_a_verdict_is_stored_as_the_same_json_as_before():
    """Issue 46 item 3: verdicts are typed (Verdict, Outcome); what a proposal stores is unchanged."""
    refl = _reflection(preferences=[("John Zhang enjoys street dance.", ["j1"])],
                       facts=[("John Zhang: street dance, enjoys!", ["j1"]), ("John Zhang cooks Western steak.", ["j2"])])
    out = ground_reflection(refl, list(JOHN), texts=JOHN, subject="John Zhang")
    keys = ["category", "statement", "memory_ids", "kept_ids", "coverage", "verdict", "restated", "quotes", "check",
            "text", "chat_removed", "outcome", "reason"]
    assert [list(v.to_dict()) for v in out.judged] == [keys] * 3
    assert [v.to_dict()["outcome"] for v in out.judged] == ["kept", "folded", "dropped"]
    assert json.dumps(out.report(), sort_keys=True).startswith('{"capped_statements": 0, "cited": ["j1"], '
                                                               '"dropped": [{"category": "facts", "coverage": 0.0,')
