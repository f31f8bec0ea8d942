"""The update pass's opt-in model verifier (issue 62 item 3) on a real Neo4j, the model a local
OpenAI-compatible server replaying recorded answers (tests/llm_server.py) or, opt-in, a real endpoint:
what a reviewer would check after a pass."""

import warnings
from datetime import datetime, timedelta, timezone

import pytest
from llm_server import FakeLLM, needs_real_endpoint, real_endpoint, use_verifier, verdicts_by_pair

from graphcons.core.errors import ConfigError

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)
T0 = datetime(2026, 9, 1, 9, 0, tzinfo=timezone.utc)
# subject -> (older, newer, what the model is scripted to answer): two pairs the rules propose
PAIRS = {
    "food": ("I've tried three different Korean restaurants in my city so far.",
             "By the way, I've tried four different Korean restaurants in my city so far.", "update"),
    "work": ("I lead a team of 4 engineers in my new role as senior engineer.",
             "I lead a team of 6 engineers in my new role as senior engineer.", "both_hold"),
}
ANSWERS = {"update": (True, True), "both_hold": (True, False), "different": (False, False)}


def verdict(label, reason=None, answers=None):
    same, replaces = answers or ANSWERS[label]
    return {"args": {"reason": reason or f"scripted {label}", "same_attribute": same, "newer_replaces": replaces,
                     "verdict": label}}


@pytest.fixture
def llm():
    with FakeLLM(fallback=verdicts_by_pair(PAIRS, verdict, "different")) as server:
        yield server


def use_llm(g, server, **updates):
    use_verifier(g, server, "updates", **updates)


def add_pairs(g, subjects=tuple(PAIRS)):
    """Each pair's older and newer statement, 40 days apart: {subject: (older id, newer id)}."""
    said = [(s, text, T0 + timedelta(days=40 * n)) for s in subjects for n, text in enumerate(PAIRS[s][:2])]
    ids = [g.add({"content": text, "subject": s, "namespace": "chat", "created_at": at}).id for s, text, at in said]
    return {s: tuple(ids[2 * n:2 * n + 2]) for n, s in enumerate(subjects)}


def test_without_the_verifier_the_rules_propose_both_pairs(g):
    ids = add_pairs(g)
    report = g.updates(now=NOW)
    assert {(u.older, u.newer) for u in report.proposed} == set(ids.values())
    assert report.verifier == "rules" and report.refused == [] and report.pending == []


def test_only_what_the_model_calls_an_update_is_proposed_and_no_pair_is_asked_twice(g, llm):
    use_llm(g, llm)
    ids = add_pairs(g)
    report = g.updates(dry_run=False, now=NOW)
    assert len(llm.requests) == 2
    assert [(u.older, u.newer) for u in report.proposed] == [ids["food"]]
    (refused,) = report.refused
    assert (refused.older, refused.newer) == ids["work"] and "both_hold" in refused.reason
    assert [(p["memory_ids"][1], p["memory_ids"][0]) for p in g.proposals(kind="update")] == [ids["food"]]
    verdicts = g.audit_log(op="update_verdict")
    assert sorted(v["details"]["verdict"] for v in verdicts) == ["both_hold", "update"]
    for req in llm.requests:  # the statements reach the model only inside the fence, as data, with their days
        system, user = req["messages"][0]["content"], req["messages"][1]["content"]
        fence = user.split("\n\n", 1)[1].split(" ", 1)[0]
        assert fence.startswith("@@MEMORY-") and fence in system and "DATA" in system
        assert "said 2026-09-01" in user and "said 2026-10-11" in user
    again = g.updates(dry_run=False, now=NOW)  # the refused pair is read back from its verdict, not asked again
    assert len(llm.requests) == 2 and again.proposed == [] and len(again.refused) == 1


def test_an_update_its_own_answers_contradict_is_refused(g, llm):
    use_llm(g, llm)
    add_pairs(g, ("food",))
    llm.push(verdict("update", "the count went up", answers=(True, False)))
    report = g.updates(dry_run=False, now=NOW)
    assert report.proposed == [] and "newer_replaces=False" in report.refused[0].reason
    assert g.proposals(kind="update") == []


def test_a_spent_budget_or_a_failed_provider_leaves_the_pair_pending_for_the_next_pass(g, llm):
    use_llm(g, llm)
    g.config.llm.max_calls_per_run = 1
    ids = add_pairs(g)
    first = g.updates(dry_run=False, now=NOW)
    assert len(llm.requests) == 1 and len(first.pending) == 1
    assert "[llm] max_calls_per_run" in first.pending[0].reason
    second = g.updates(dry_run=False, now=NOW)  # the pair that waited is asked; the judged one is not again
    assert len(llm.requests) == 2 and second.pending == []
    assert [(u.older, u.newer) for u in first.proposed + second.proposed] == [ids["food"]]
    assert [(r.older, r.newer) for r in second.refused] == [ids["work"]]
    g.config.llm.max_calls_per_run = 0
    g.add({"content": "I've tried five different Korean restaurants in my city so far.", "subject": "food",
           "namespace": "chat", "created_at": T0 + timedelta(days=80)})
    llm.push({"status": 503}, {"status": 503})
    failed = g.updates(dry_run=False, now=NOW)
    assert failed.proposed == [] and failed.pending and "HTTP 503" in failed.pending[0].reason
    assert g.updates(dry_run=False, now=NOW).proposed  # the next pass asks again


def test_the_daily_cap_and_a_dry_run(g, llm):
    use_llm(g, llm, llm_daily_cap=1)
    add_pairs(g)
    dry = g.updates(now=NOW)  # asks within the run's budget and records nothing: the day's cap counts records
    assert len(llm.requests) == 2 and len(dry.proposed) == 1 and len(dry.refused) == 1
    assert g.audit_log(op="update_verdict") == [] and g.proposals(kind="update") == []
    real = g.updates(dry_run=False, now=NOW)
    assert len(llm.requests) == 3 and len(real.pending) == 1 and len(g.audit_log(op="update_verdict")) == 1
    assert "[updates] llm_daily_cap" in real.pending[0].reason
    later = g.updates(dry_run=False, now=NOW + timedelta(days=1))  # a new day, a new cap; the judged pair is known
    assert later.pending == [] and len(llm.requests) == 4


def test_the_llm_verifier_needs_an_llm(g):
    add_pairs(g, ("food",))
    g.config.updates.verifier = "llm"
    with pytest.raises(ConfigError, match="updates.verifier"):
        g.updates(now=NOW)


@needs_real_endpoint
def test_real_openai_compatible_endpoint(g):
    """Opt-in: the verifier against a real endpoint (the variables of test_merge_verifiers' one). A weak
    model may misjudge a pair (reported as a warning); what fails: a pair proposed that the model did not
    call an update, or a verdict outside the three."""
    g.config.llm = real_endpoint()
    g.config.updates.verifier = "llm"
    add_pairs(g)
    report = g.updates(dry_run=False, now=NOW)
    verdicts = {v["targets"][0]: v["details"] for v in g.audit_log(op="update_verdict")}
    assert len(verdicts) == 2 and all(v["verdict"] in (None, "update", "both_hold", "different")
                                      for v in verdicts.values())
    for u in report.proposed:
        assert verdicts[u.proposal_id]["verdict"] == "update"
    warnings.warn(f"real endpoint {g.config.llm.model}: "
                  f"{ {k: (v['verdict'], v['reason'] or v['error']) for k, v in verdicts.items()} }", UserWarning)
