"""Real models in the loop (issue 31): what a model says is checked before it acts.

Recorded exchanges over the real OpenAI protocol (tests/llm_server.py: the openai SDK and
instructor talk HTTP to it as to any server) and the real Neo4j: prompt-local short ids mapped
back, one re-ask with the validation error, a reflection consolidating only what it cited, llm
merge verdicts the rules or the model's own answers contradict, the summary and tension checks,
`graphcons llm check`, and importing graphcons leaving the host's warnings and logging alone."""

import json
import os
import subprocess
import sys
import textwrap

import pytest
from llm_server import FakeLLM, grounded_answer, shown_member_ids
from synthesis_helpers import NOW, add_incidents
from test_merge_verifiers import PAIRS, verdict_args

from graphcons.consolidation.grounding import ground
from graphcons.consolidation.synthesis import make_synthesizer
from graphcons.consolidation.synthesis.models import Claim, Insight, Reflection, Statement, Tension
from graphcons.profiles.reflection_grounding import ground_reflection
from graphcons.core.config import Config, LLMConfig
from graphcons.core.errors import Ungrounded
from graphcons.scenarios import PEOPLE_NAMESPACE, seed_people


def use_llm(g, server, **llm):
    g.config.llm = LLMConfig(provider="openai", base_url=server.base_url, model="test-model", timeout_s=5.0,
                             max_retries=0, **llm)
    return make_synthesizer(g.config.llm)


def tool_enum(request, prop="member_ids"):
    """The ids the schema offered the model (the enum of the first `prop` array found)."""
    def walk(node):
        if isinstance(node, dict):
            if prop in node.get("properties", {}):
                return node["properties"][prop]["items"]["enum"]
            for v in node.values():
                found = walk(v)
                if found:
                    return found
        return None
    return walk(request["tools"][0]["function"]["parameters"])


@pytest.fixture
def cli_env(tmp_path):
    """`graphcons ...` in a subprocess, its [llm] pointed at a recorded-exchange server."""
    def run(server, *args, timeout="5"):
        env = dict(os.environ, GRAPHCONS__LLM__PROVIDER="openai", GRAPHCONS__LLM__BASE_URL=server.base_url,
                   GRAPHCONS__LLM__MODEL="test-model", GRAPHCONS__LLM__TIMEOUT_S=timeout,
                   GRAPHCONS__LLM__MAX_RETRIES="0")
        env.pop("GRAPHCONS_CONFIG", None)
        return subprocess.run([sys.executable, "-m", "graphcons", *args], capture_output=True, text=True, env=env,
                              cwd=tmp_path, timeout=180)
    return run


# -- short ids ------------------------------------------------------------------------------------
def test_the_model_sees_short_ids_and_the_proposal_cites_the_real_ones(g):
    with FakeLLM() as llm:
        synth = use_llm(g, llm)
        long_ids = [(f"m-{i:016x}", text, src, day) for i, (_, text, src, day) in
                    enumerate(__import__("synthesis_helpers").INCIDENTS, 0xA1B2C3D4E5F60000)]
        cluster = add_incidents(g, long_ids)
        out = g.synthesize(cluster, now=NOW, synthesizer=synth)
    assert out.status == "proposed", out.reason
    for request in llm.requests:
        assert shown_member_ids(request) == ["M1", "M2", "M3", "M4"]
        assert tool_enum(request) == ["M1", "M2", "M3", "M4"]
        assert not any(mid in json.dumps(request) for mid, *_ in long_ids)  # no long id reaches the model
    p = g.proposal(out.proposal_id)
    assert sorted(p["cited"]) == sorted(m for m, *_ in long_ids)
    assert all(set(c["member_ids"]) <= set(p["cited"]) for c in p["insight"]["claims"])


def test_a_short_id_that_was_never_shown_is_stripped_by_the_grounding_guard(g):
    with FakeLLM(fallback=lambda req: grounded_answer(req, extra_ids=["M9"])) as llm:
        synth = use_llm(g, llm)
        out = g.synthesize(add_incidents(g), now=NOW, synthesizer=synth)
    assert out.status == "proposed"
    p = g.proposal(out.proposal_id)
    assert p["cited"] == ["inc-1", "inc-2", "inc-3", "inc-4"] and "M9" in p["grounding"]["stripped"]


# -- one re-ask with the validation error ------------------------------------------------------------
def test_an_answer_that_does_not_validate_is_asked_again_with_the_error(g):
    with FakeLLM() as llm:
        llm.push({"raw": json.dumps({"themes": []})})  # invalid: at least one theme
        synth = use_llm(g, llm, reasks=1)
        out = g.synthesize(add_incidents(g), now=NOW, synthesizer=synth)
    assert out.status == "proposed", out.reason
    assert len(llm.requests) == 3  # themes, themes again, insight
    retry = json.dumps(llm.requests[1]["messages"])
    assert "themes" in retry and "at least 1 item" in retry  # the model is shown what was wrong
    assert [a["details"]["calls"] for a in g.audit_log(op="synthesize")] == [3]  # the budget counts every request


def test_without_a_reask_the_same_answer_fails_and_nothing_is_stored(g):
    with FakeLLM() as llm:
        llm.push({"raw": json.dumps({"themes": []})})
        synth = use_llm(g, llm, reasks=0)
        out = g.synthesize(add_incidents(g), now=NOW, synthesizer=synth)
    assert out.status == "failed" and "not a valid themes after 1 attempt" in out.reason
    assert len(llm.requests) == 1 and g.proposals(kind="consolidate") == []


# -- reflection -----------------------------------------------------------------------------------------
def test_approving_a_reflection_consolidates_only_the_memories_it_cited(g):
    seed_people(g)

    def cite_two(request):
        ids = [i for i in tool_enum(request, "memory_ids")]
        return {"args": {"preferences": [{"memory_ids": ids[:1], "statement": "Ana prefers TypeScript."}],
                         "behaviors": [], "facts": [{"memory_ids": ids[1:2], "statement": "Ana wants TypeScript code examples."}],
                         "summary": "Ana prefers TypeScript."}}

    with FakeLLM(fallback=cite_two) as llm:
        use_llm(g, llm)
        res = g.reflect("user-ana", namespace=PEOPLE_NAMESPACE, now=NOW)
    assert res.status == "proposed" and res.memories_reviewed == 15
    p = g.proposal(res.proposal_id)
    assert len(p["cited"]) == 2
    d = g.approve(res.proposal_id, now=NOW)
    assert d.consolidated == 2
    statuses = {m: g.get(m).status for m in p["member_ids"]}
    assert {m for m, s in statuses.items() if s == "consolidated"} == set(p["cited"])
    assert sum(s == "active" for s in statuses.values()) == 13  # the uncited ones count toward the next reflection
    g.revert(res.proposal_id, "wrong", now=NOW)
    assert all(g.get(m).status == "active" for m in p["cited"])


def test_a_summary_claim_no_memory_supports_is_dropped():
    reflection = Reflection(preferences=[Statement(statement="Ana prefers TypeScript.", memory_ids=["a1"])],
                            summary="Ana prefers TypeScript for new services. Ana is a senior software engineer at Google.")
    g = ground_reflection(reflection, ["a1", "a2"], subject="user-ana",
                          texts={"a1": "Ana prefers TypeScript over JavaScript for every new service.",
                                 "a2": "Ana takes the train to work."})
    assert g.reflection.summary == "Ana prefers TypeScript for new services."
    assert g.report()["dropped_summary"] == ["Ana is a senior software engineer at Google."]


def test_a_statement_keeps_only_the_citations_that_share_a_word_with_it():
    # The 1.5B model's habit (bench/llm/results/llm.json): the memory it used, plus its neighbours in the list.
    texts = {"a1": "I go for a run and meditate every morning before work.",
             "a2": "Thinking of travelling to Japan next spring; any tips?",
             "a3": "My sister called about her new puppy."}
    reflection = Reflection(
        behaviors=[Statement(statement="Ana meditates every morning.", memory_ids=["a1", "a2"])],
        preferences=[Statement(statement="Ana loves gardening.", memory_ids=["a3"])], summary="")
    g = ground_reflection(reflection, list(texts), subject="user-ana", texts=texts)
    assert [(s.statement, s.memory_ids) for _, s in g.reflection.statements()] == [("Ana meditates every morning.", ["a1"])]
    assert g.cited == ["a1"]  # approving consolidates a1 only
    assert g.report()["unsupported_citations"] == ["a2"] and g.dropped_statements == 1
    assert [(d["statement"], d["memory_ids"]) for d in g.report()["dropped"]] == [("Ana loves gardening.", ["a3"])]
    with pytest.raises(Ungrounded):
        ground_reflection(Reflection(facts=[Statement(statement="Ana owns a boat.", memory_ids=["a3"])], summary=""),
                          list(texts), subject="user-ana", texts=texts)
    # a statement of nothing but the entity's name says nothing a memory could support (issue 40)
    with pytest.raises(Ungrounded, match="no content word"):
        ground_reflection(Reflection(facts=[Statement(statement="Ana.", memory_ids=["a3"])], summary=""),
                          list(texts), subject="user-ana", texts=texts)


# -- the synthesis prompt's own rules, in code ----------------------------------------------------------
def test_a_tension_that_restates_a_claim_is_dropped_and_confidence_is_capped():
    members = ["a", "b", "c"]
    sources = {"a": ["s1"], "b": ["s2"], "c": ["s3"]}
    claim = Claim(statement="Checkout returns 503 after every deploy.", member_ids=members)
    insight = Insight(title="t", concept="c", claims=[claim], confidence=1.0,
                      tensions=[Tension(description="Checkout returns 503 errors after each deploy.", member_ids=["a"]),
                                Tension(description="One incident blamed the database, not the cache.", member_ids=["b"])])
    g = ground(insight, None, members, sources)
    assert [t.description for t in g.insight.tensions] == ["One incident blamed the database, not the cache."]
    assert g.insight.confidence == 0.9 and g.report()["confidence_capped"] == {"given": 1.0, "kept": 0.9}
    # every member cited, no tension or gap, three independent sources: no doubt left, 1.0 stands
    clear = ground(Insight(title="t", concept="c", claims=[claim], confidence=1.0), None, members, sources)
    assert clear.insight.confidence == 1.0 and "confidence_capped" not in clear.report()
    one_source = ground(Insight(title="t", concept="c", claims=[claim], confidence=1.0), None, members,
                        {m: ["s1"] for m in members})
    assert one_source.insight.confidence == 0.9  # one source said it three times: not beyond doubt


# -- the llm merge verifier -------------------------------------------------------------------------------
def merge_links(g):
    return g.db.run_text("MATCH (a)-[r:CONFLICTS_WITH|RELATED]->(b) RETURN type(r) AS t ORDER BY t")


def test_a_conflict_the_rules_contradict_is_not_written(g):
    a, b, _ = PAIRS["checkout"]  # a restatement: the rules verifier calls it a duplicate
    with FakeLLM(fallback=lambda req: verdict_args("conflict", "they disagree")) as llm:
        use_llm(g, llm)
        g.config.merge.verifier = "llm"
        g.add({"title": a, "content": a, "subject": "checkout"})
        g.add({"title": b, "content": b, "subject": "checkout"})
        report = g.merge(dry_run=False, now=NOW)
    assert len(llm.requests) == 1
    assert not report.conflicts and not report.proposed and merge_links(g) == []
    (refused,) = report.refused
    assert refused.verdict == "conflict" and "rules verifier calls the pair a duplicate" in refused.refused
    (verdict,) = g.audit_log(op="merge_verdict")
    assert verdict["details"]["verdict"] == "conflict" and verdict["details"]["refused"]  # kept, not acted on


def test_a_verdict_the_models_own_answers_contradict_is_not_acted_on(g):
    a, b, _ = PAIRS["dashboard"]
    # the case: "conflict", with its own answer that the two are about different things
    answer = verdict_args("conflict", "the two memories are about different things", (False, True, False))
    with FakeLLM(fallback=lambda req: answer) as llm:
        use_llm(g, llm)
        g.config.merge.verifier = "llm"
        g.add({"title": a, "content": a, "subject": "dashboard"})
        g.add({"title": b, "content": b, "subject": "dashboard"})
        report = g.merge(dry_run=False, now=NOW)
    assert not report.conflicts and merge_links(g) == []
    assert "the model called it a conflict but answered same_subject=False" in report.refused[0].refused


def test_a_duplicate_the_rules_place_far_under_the_floor_is_not_proposed(g):
    a, b, _ = PAIRS["meetings"]  # standup / retro: one slot replaced
    with FakeLLM(fallback=lambda req: verdict_args("duplicate")) as llm:
        use_llm(g, llm)
        g.config.merge.verifier = "llm"
        g.config.merge.llm_duplicate_floor = 0.99  # whatever the rules figure, it is under this floor
        g.add({"title": a, "content": a, "subject": "meetings"})
        g.add({"title": b, "content": b, "subject": "meetings"})
        report = g.merge(dry_run=False, now=NOW)
    assert not report.proposed and g.proposals(kind="merge") == []
    assert "llm_duplicate_floor" in report.refused[0].refused


# -- graphcons llm check ----------------------------------------------------------------------------------
def _check_answers(request):
    name = request["tools"][0]["function"]["name"]
    if name == "Reflection":
        ids = tool_enum(request, "memory_ids")
        return {"args": {"preferences": [{"memory_ids": [ids[0]], "statement": "Kim prefers tea over coffee."}],
                         "behaviors": [{"memory_ids": [ids[3]], "statement": "Kim runs every Sunday morning."}],
                         "facts": [{"memory_ids": [ids[4]], "statement": "Kim works as a nurse."}],
                         "summary": "Kim is a nurse who prefers tea."}}
    return grounded_answer(request)


def test_llm_check_reports_a_usable_endpoint(cli_env):
    with FakeLLM(fallback=_check_answers) as llm:
        out = cli_env(llm, "llm", "check", "--json", timeout="120")  # a loaded machine: no "over half" advice
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["ok"] is True and [s["step"] for s in data["steps"]] == ["synthesis", "reflection"]
    assert all(s["parsed"] and s["grounded"] and s["seconds"] >= 0 for s in data["steps"])
    assert data["steps"][0]["cited"] == ["m-1", "m-2", "m-3", "m-4"] and data["advice"] == []


def test_llm_check_says_what_to_change_when_output_is_ungrounded_or_late(cli_env):
    with FakeLLM(fallback=lambda req: grounded_answer(req, extra_ids=["m-ghost"], only_invented=True)) as llm:
        out = cli_env(llm, "llm", "check", "--json")
    assert out.returncode == 7
    data = json.loads(out.stdout)
    assert data["ok"] is False and data["steps"][0]["parsed"] and not data["steps"][0]["grounded"]
    assert any("cited none of the memories" in a for a in data["advice"])
    with FakeLLM(fallback={"delay": 3.0, "args": {}}) as llm:
        out = cli_env(llm, "llm", "check", "--json", timeout="1")
    data = json.loads(out.stdout)
    assert out.returncode == 7 and any("raise [llm] timeout_s" in a for a in data["advice"])


def test_llm_check_with_the_offline_provider_says_how_to_configure_one(tmp_path):
    from graphcons.llm_check import check

    out = check(Config())
    assert out["ok"] is False and out["steps"] == [] and "provider" in out["advice"][0]


# -- importing graphcons leaves the host's warnings and logging alone -------------------------------------
def test_importing_graphcons_leaves_warnings_and_logging_as_they_were():
    script = textwrap.dedent("""
        import logging, warnings, json
        root = logging.getLogger()
        before = (warnings.showwarning, list(root.handlers), root.level, logging.getLogger("py.warnings").handlers[:])
        import graphcons, graphcons.api, graphcons.cli
        from graphcons.core.redaction import redact
        assert "[REDACTED:" in redact("password=hunter2hunter2").text  # loads the detect-secrets plugins
        after = (warnings.showwarning, list(root.handlers), root.level, logging.getLogger("py.warnings").handlers[:])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            warnings.warn("host warning")
        print(json.dumps({"same": before == after, "caught": len(caught),
                          "show": getattr(warnings.showwarning, "__module__", "")}))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got == {"same": True, "caught": 1, "show": "warnings"}


# -- scenarios say which synthesizer ran -------------------------------------------------------------------
def test_the_travel_scenario_uses_the_configured_synthesizer_and_says_which(g):
    from graphcons.scenarios import travel_preferences

    out = travel_preferences(g)
    assert out["synthesizer"] == {"provider": "offline", "model": make_synthesizer(g.config.llm).model}
    assert "offline" in out["steps"][0]["note"]
