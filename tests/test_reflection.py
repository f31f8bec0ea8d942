"""Per-entity reflection and entity profiles (issue 14, seed 004), on the real Neo4j; the
provider path over the real OpenAI protocol (tests/llm_server.py)."""

import json
import os
import re
import tempfile
import warnings
from datetime import datetime, timedelta, timezone

import pytest
from llm_server import FakeLLM

from graphcons.consolidation.synthesis import make_synthesizer
from graphcons.consolidation.synthesis.offline import OfflineSynthesizer
from graphcons.consolidation.synthesis.openai import OpenAISynthesizer
from graphcons.core.config import Config, LLMConfig
from graphcons.core.errors import Conflict, NotFound
from graphcons.maintenance.merge.score import proposal_id
from graphcons.profiles import reflect as reflection
from graphcons.scenarios import PEOPLE_NAMESPACE, seed_people

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)
T0 = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
NS = PEOPLE_NAMESPACE
SHOWN_RE = re.compile(r"MEMORY id=(\S+)")


def add_many(g, subject, texts, *, namespace="default", start=0, kind="observation"):
    """Admit through the bulk path (batched embeddings: the machine running the tests is busy)."""
    rows = [{"id": f"{subject}-{n:03d}", "content": text, "subject": subject, "namespace": namespace, "kind": kind,
             "source": f"chat:{subject}", "created_at": (T0 + timedelta(hours=n)).isoformat()}
            for n, text in enumerate(texts, start)]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "memories.jsonl")
        with open(path, "w") as fh:
            fh.write("\n".join(json.dumps(r) for r in rows))
        report = g.import_jsonl(path)
    assert report.admitted == len(rows), report.errors
    return [r["id"] for r in rows]


def due_subjects(g, namespace="default"):
    return [(d["subject"], d["unconsolidated"]) for d in reflection.due(g.db, g.config, namespace=namespace)]


def status(g, mid):
    return g.get(mid).status


def shown_ids(request):
    text = "\n".join(m.get("content") or "" for m in request.get("messages", []))
    return list(dict.fromkeys(SHOWN_RE.findall(text)))


def short(request, memory):
    """The prompt-local id (M1..) the model was shown for a memory of the people scenario (by its
    id) or for a memory's text (issue 31: the model never sees the stored ids)."""
    from graphcons.scenarios import PEOPLE

    content = {mid: text for mid, _, _, text in PEOPLE}.get(memory, memory)
    text = "\n".join(m.get("content") or "" for m in request.get("messages", []))
    return re.search(r"MEMORY id=(\S+)[^\n]*\n" + re.escape(content), text).group(1)


def answer(preferences=(), behaviors=(), facts=(), summary="A summary."):
    def st(items):
        return [{"statement": s, "memory_ids": list(ids)} for s, ids in items]
    return {"args": {"preferences": st(preferences), "behaviors": st(behaviors), "facts": st(facts),
                     "summary": summary}}


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


def use_llm(g, server):
    g.config.llm = LLMConfig(provider="openai", base_url=server.base_url, model="test-model", timeout_s=5.0,
                             max_retries=0)
    return make_synthesizer(g.config.llm)


# -- thresholds and selection ---------------------------------------------------------------------
def test_entity_due_at_10_namespace_wide_at_50_and_counts_are_cumulative(g):
    add_many(g, "user-x", [f"User X prefers tea number {i} in the afternoon." for i in range(9)], kind="preference")
    add_many(g, "general", [f"General note {i} about the office and the team." for i in range(49)])
    assert due_subjects(g) == []
    add_many(g, "user-x", ["User X prefers green tea."], start=9, kind="preference")
    add_many(g, "general", ["One more general note about lunch."], start=49)
    assert due_subjects(g) == [("general", 50), ("user-x", 10)]

    res = g.reflect("user-x", now=NOW)
    assert res.status == "proposed" and res.memories_reviewed == 10
    d = g.approve(res.proposal_id, now=NOW)
    cited = g.proposal(res.proposal_id)["cited"]
    assert d.consolidated == len(cited) and all(status(g, m) == "consolidated" for m in cited)
    add_many(g, "user-x", [f"User X said another thing {i}." for i in range(3)], start=10)
    # consolidated (cited) memories no longer count, nor do the semantic memories the reflection wrote;
    # the shown but uncited ones do (issue 31)
    counts = g.db.run("reflection/subject", namespace="default", subject="user-x", kinds=g.config.reflection.kinds)
    assert counts[0]["unconsolidated"] == 3 + 10 - len(cited)


TOPICS = {
    "coffee": "Kim drinks a flat white coffee at the corner cafe {}.",
    "chess": "Kim played an online chess blitz game and lost on time {}.",
    "garden": "Kim watered the tomato plants in the garden {}.",
    "piano": "Kim practised Chopin nocturnes on the piano {}.",
    "running": "Kim ran ten kilometres along the river before work {}.",
}


def test_reflection_shows_15_of_the_50_most_recent_chosen_for_coverage(g):
    # 60 memories: 10 old ones on piano, then 50 recent: the newest 20 all about coffee, the 30 before
    # them spread over chess, garden and running. Newest-15 would show coffee only.
    rows = [("piano", i) for i in range(10)] + [(t, i) for i in range(10) for t in ("chess", "garden", "running")]
    rows += [("coffee", i) for i in range(20)]
    texts = [TOPICS[t].format(f"on day {i + 1}") for t, i in rows]
    ids = add_many(g, "kim", texts)
    topic_of = dict(zip(ids, [t for t, _ in rows]))
    res = g.reflect("kim", now=NOW)
    assert res.memories_reviewed == 15 and res.selection["candidates"] == 50
    assert res.selection["method"] == "facility-location"
    shown = g.proposal(res.proposal_id)["member_ids"]
    assert len(shown) == 15 and set(shown) <= set(ids[10:])  # only the 50 most recent
    assert {topic_of[i] for i in shown} == {"coffee", "chess", "garden", "running"}  # every recent topic
    assert ids[-1] in shown  # the newest memory is always shown
    newest = set(ids[-15:])
    assert res.selection["coverage"] > reflection.coverage(
        g.db.run("reflection/candidates", namespace="default", subject="kim", kinds=g.config.reflection.kinds,
                 recent=50), newest)
    # deterministic: the same store selects the same memories
    rows50 = g.db.run("reflection/candidates", namespace="default", subject="kim", kinds=g.config.reflection.kinds,
                      recent=50)
    assert [r["id"] for r in reflection.select(rows50, 15)] == sorted(shown, key=lambda i: -ids.index(i))


# -- grounding ------------------------------------------------------------------------------------------
def test_grounding_strips_unshown_ids_and_drops_statements_citing_nothing(g, llm):
    seed_people(g)
    synth = use_llm(g, llm)
    llm.push(lambda req: answer(
        preferences=[("Prefers TypeScript", [short(req, "ana-01"), "ana-99"]), ("Loves Haskell", ["m-invented"])],
        facts=[("Maintains the checkout SDK (confirmed 7 times)", [short(req, "ana-11")])]))
    res = g.reflect("user-ana", now=NOW, synthesizer=synth)
    assert res.status == "proposed"
    p = g.proposal(res.proposal_id)
    refl = p["payload"]["reflection"]
    # each statement restates the one memory it cites: kept as a quoted fact marked restated (issue 40)
    assert refl["preferences"] == []
    assert refl["facts"] == [{"statement": "Prefers TypeScript", "memory_ids": ["ana-01"], "restated": "ana-01"},
                             {"statement": "Maintains the checkout SDK", "memory_ids": ["ana-11"], "restated": "ana-11"}]
    assert p["grounding"]["stripped"] == ["ana-99", "m-invented"] and p["grounding"]["dropped_statements"] == 1
    # the schema the model saw typed every cited id as one of the shown ids, and the text was fenced
    req = llm.requests[-1]
    schema = json.dumps(req["tools"][0]["function"]["parameters"])
    assert '"enum"' in schema and '"M15"' in schema and "ana-01" not in schema  # short ids, mapped back in code
    assert req["messages"][1]["content"].count("@@MEMORY-") >= 2 * 15


def test_a_dropped_statement_is_listed_in_the_proposal_with_its_reason(g, llm, neo4j_settings, tmp_path):
    seed_people(g)
    synth = use_llm(g, llm)
    # "Works in Lisbon" cites the memory next to the right one (ana-11 instead of ana-10): dropped on its
    # words; the generalisation is checked (issue 48), and the model's quote is not in the memories: dropped
    llm.push(lambda req: answer(preferences=[("Ana prefers TypeScript", [short(req, "ana-01")])],
                                behaviors=[("Ana reviews pull requests every morning",
                                            [short(req, "ana-07"), short(req, "ana-09")])],
                                facts=[("Ana works in Lisbon", [short(req, "ana-11")])]),
             lambda req: {"args": {"supporting": [{"memory_id": "M1", "quote": "Ana reviews pull requests at noon"}]}})
    res = g.reflect("user-ana", now=NOW, synthesizer=synth)
    assert res.status == "proposed" and res.calls == 2  # the reflection and one support check
    p = g.proposal(res.proposal_id)
    assert [s["statement"] for s in p["payload"]["reflection"]["behaviors"]] == []
    dropped = p["grounding"]["dropped"]
    assert [(d["statement"], d["memory_ids"]) for d in dropped] == [
        ("Ana reviews pull requests every morning", ["ana-07", "ana-09"]), ("Ana works in Lisbon", ["ana-11"])]
    assert "quoted no span of a cited memory" in dropped[0]["reason"]
    assert "hold 0 of its 2 content words" in dropped[1]["reason"]
    assert p["grounding"]["checked"][0]["quotes"][0]["found"] is False
    assert "ana-11" not in p["cited"]  # approving consolidates only what supported statements cite
    import subprocess
    import sys

    env = dict(os.environ, NEO4J_URI=neo4j_settings.uri, NEO4J_USER=neo4j_settings.user,
               NEO4J_PASSWORD=neo4j_settings.resolved_password())
    env.pop("GRAPHCONS_CONFIG", None)
    out = subprocess.run([sys.executable, "-m", "graphcons", "proposals", "show", res.proposal_id], capture_output=True,
                         text=True, env=env, cwd=tmp_path, timeout=180)
    assert "dropped statements (2)" in out.stdout and "Ana works in Lisbon" in out.stdout


def test_a_reflection_citing_nothing_is_rejected_and_nothing_is_stored(g, llm):
    seed_people(g)
    synth = use_llm(g, llm)
    llm.push(answer(preferences=[("Prefers Rust", ["m-nope"])]))
    res = g.reflect("user-ana", namespace=NS, now=NOW, synthesizer=synth)
    assert res.status == "ungrounded" and res.proposal_id is None
    assert g.proposals(kind="reflect") == []
    assert g.audit_log(op="reflect")[0]["details"]["outcome"] == "rejected_ungrounded"
    assert status(g, "ana-01") == "active"


# -- apply, merge, revert -----------------------------------------------------------------------------
def semantic(g, subject):
    return g.db.run_text("MATCH (s:Memory {subject: $s, source: 'graphcons:reflect'}) "
                         "RETURN s {.*, embedding: null} AS m ORDER BY s.id", s=subject)


def test_apply_stores_semantic_memories_marks_sources_consolidated_and_writes_the_profile(g):
    seed_people(g)
    res = g.reflect("user-ana", now=NOW)  # offline, extractive
    assert res.status == "proposed" and not res.profile_updated and res.profile is None
    said = {s["statement"]: s for c in ("preferences", "behaviors", "facts") for s in res.reflection[c]}
    # extractive: each statement cites only the memories it was taken from (not ana-02 / ana-03, which
    # only share its topic) and, restating one memory, is a fact marked restated (issue 40)
    ts = said["Ana prefers TypeScript over JavaScript for every new service"]
    assert ts["memory_ids"] == ["ana-01"] and ts["restated"] == "ana-01"
    assert said["Ana prefers the train to flying for trips under 500 km"]["memory_ids"] == ["ana-04"]
    assert all(s["restated"] is None for s in res.reflection["preferences"] + res.reflection["behaviors"])
    assert semantic(g, "user-ana") == [] and status(g, "ana-01") == "active"  # nothing before approval

    d = g.approve(res.proposal_id, now=NOW)
    cited = set(g.proposal(res.proposal_id)["cited"])
    assert d.kind == "reflect" and d.profile_version == 1 and d.consolidated == len(cited) >= 3
    assert all(status(g, f"ana-{i:02d}") == ("consolidated" if f"ana-{i:02d}" in cited else "active")
               for i in range(1, 16))  # only what the reflection cited (issue 31)
    assert status(g, "bo-01") == "active"
    assert g.search("TypeScript", namespace=NS)  # consolidated memories stay searchable
    mems = [r["m"] for r in semantic(g, "user-ana")]
    assert len(mems) == len(d.created) == len(res.insights)
    for m in mems:
        assert m["kind"] in ("preference", "behavior", "fact") and m["importance"] == 0.8
        assert m["tags"] == ["reflection", "insight"] and m["source_type"] == "consolidated"
        assert m["epistemic_status"] == "hypothesis" and m["source_count"] == len(m["derived_from"]) >= 1
        linked = g.db.run_text("MATCH (:Memory {id: $id})-[:DERIVED_FROM]->(s) RETURN collect(s.id) AS ids",
                               id=m["id"])[0]["ids"]
        assert sorted(linked) == m["derived_from"]
    prof = g.profile("user-ana")
    assert prof["version"] == 1 and prof["summary"]
    ts = [e for e in prof["facts"] if "TypeScript" in e["statement"]][0]
    assert ts["sources"] == ["ana-01"] and ts["restated"] == "ana-01" and ts["id"] in d.created
    rows = g.db.run("profile/sources", namespace=NS, subject="user-ana")
    assert {r["memory_id"] for r in rows} == set(d.created)
    assert {s["id"] for r in rows for s in r["sources"]} == set(prof["source_ids"])
    assert g.audit_log(op="approve")[0]["details"]["kind"] == "reflect"


def test_a_second_reflection_confirms_flags_and_keeps_the_previous_version(g, llm):
    seed_people(g)
    synth = use_llm(g, llm)
    # generalisations: each said by two memories (one memory's words alone would be a restated fact)
    ts, train = "Ana prefers TypeScript", "Ana prefers the train"
    llm.push(lambda req: answer(preferences=[(ts, [short(req, "ana-01"), short(req, "ana-02")]),
                                             (train, [short(req, "ana-04"), short(req, "ana-05")])],
                                facts=[("Works on payments", [short(req, "ana-10")])]))
    first = g.reflect("user-ana", now=NOW, synthesizer=synth)
    g.approve(first.proposal_id, now=NOW)
    v1 = g.profile("user-ana")
    again, flies, strikes = ("Ana again asked for TypeScript in the new billing service.",
                             "Ana no longer takes the train since the strikes; she flies to Porto now.",
                             "Ana said she no longer books the train after the strikes.")
    add_many(g, "user-ana", [again, flies, strikes], namespace=NS, start=100, kind="episode")
    llm.push(lambda req: answer(preferences=[(ts, [short(req, again), short(req, "ana-03")]),
                                             ("Ana no longer prefers the train",
                                              [short(req, flies), short(req, strikes)])]))
    second = g.reflect("user-ana", now=NOW + timedelta(days=7), synthesizer=synth)
    # only the unconsolidated ones: the 3 new and the 10 the first reflection showed but did not cite
    assert second.memories_reviewed == 13
    d = g.approve(second.proposal_id, now=NOW + timedelta(days=7))
    assert d.profile_version == 2 and len(d.confirmed) == 1 and len(d.created) == 1
    v2 = g.profile("user-ana")
    ts_entry = [e for e in v2["preferences"] if e["statement"] == ts][0]
    assert ts_entry["id"] == [e for e in v1["preferences"] if e["statement"] == ts][0]["id"]  # confirmed in place
    assert set(ts_entry["sources"]) == {"ana-01", "ana-02", "ana-03", "user-ana-100"} and len(ts_entry["proposals"]) == 2
    old_train = [e for e in v2["preferences"] if e["statement"] == train][0]
    new_train = [e for e in v2["preferences"] if e["statement"].startswith("Ana no longer")][0]
    assert old_train["status"] == new_train["status"] == "contradicted"  # flagged, not dropped
    assert old_train["contradicted_by"] == [new_train["id"]] and new_train["contradicts"] == [old_train["id"]]
    conflict = g.db.run_text("MATCH (:Memory {id: $a})-[c:CONFLICTS_WITH]->(:Memory {id: $b}) RETURN c.status AS s",
                             a=new_train["id"], b=old_train["id"])
    assert conflict == [{"s": "open"}]
    derived = g.db.run_text("MATCH (s:Memory {id: $id}) RETURN s.derived_from AS d, s.source_count AS n",
                            id=ts_entry["id"])[0]
    assert derived == {"d": ["ana-01", "ana-02", "ana-03", "user-ana-100"], "n": 4}
    versions = g.profile_history("user-ana")
    assert [v["version"] for v in versions] == [1, 2]
    assert versions[0]["preferences"] == v1["preferences"]  # the old version is kept as it was

    with pytest.raises(Conflict):  # the older one first would lose the later one's entries
        g.revert(first.proposal_id, "out of order", now=NOW + timedelta(days=8))
    # revert the second reflection: profile back to version 1's content (as version 3), its
    # sources back to active, its new memory deprecated, the confirmed entry's sources back
    r = g.revert(second.proposal_id, "wrong", now=NOW + timedelta(days=8))
    assert r.kind == "reflect" and r.profile_version == 3
    v3 = g.profile("user-ana")
    assert v3["preferences"] == v1["preferences"] and v3["facts"] == v1["facts"]
    assert status(g, "user-ana-100") == "active" and status(g, "ana-01") == "consolidated"
    assert g.get(new_train["id"]).status == "deprecated"
    assert g.db.run_text("MATCH (s:Memory {id: $id}) RETURN s.derived_from AS d", id=ts_entry["id"])[0]["d"] == [
        "ana-01", "ana-02"]
    assert g.db.run_text("MATCH ()-[c:CONFLICTS_WITH]->() RETURN c.status AS s") == [{"s": "reverted"}]
    assert [v["version"] for v in g.profile_history("user-ana")] == [1, 2, 3]
    # revert the first too: an empty profile (version 4), every source active again
    g.revert(first.proposal_id, "also wrong", now=NOW + timedelta(days=9))
    v4 = g.profile("user-ana")
    assert v4["version"] == 4 and v4["preferences"] == [] and v4["facts"] == []
    assert all(status(g, f"ana-{i:02d}") == "active" for i in range(1, 16))


def test_approval_is_atomic(g):
    seed_people(g)
    res = g.reflect("user-ana", now=NOW)
    size = g.db.run("synthesis/graph_size")[0]

    def fail(step):
        if step == "profile":
            raise RuntimeError("injected")
    with pytest.raises(RuntimeError):
        g.approve(res.proposal_id, now=NOW, checkpoint=fail)
    assert g.db.run("synthesis/graph_size")[0] == size and semantic(g, "user-ana") == []
    assert status(g, "ana-01") == "active" and g.proposal(res.proposal_id)["status"] == "pending"
    with pytest.raises(NotFound):
        g.profile("user-ana")
    assert g.approve(res.proposal_id, now=NOW).profile_version == 1  # and it still applies afterwards


def test_auto_apply_applies_at_once_audited_and_revertible(g):
    seed_people(g)
    g.config.reflection.auto_apply = True
    res = g.reflect("user-ana", now=NOW)
    assert res.status == "applied" and res.profile_updated and res.new_semantic_memories >= 4
    assert res.profile["version"] == 1
    assert g.proposal(res.proposal_id)["applied_by"] == "auto_apply"
    assert g.audit_log(op="approve")[0]["details"]["by"] == "auto_apply"
    g.revert(res.proposal_id, "not wanted", now=NOW)
    assert status(g, "ana-01") == "active"


# -- bad input, limits, the due pass --------------------------------------------------------------------
def test_unknown_subject_is_not_found_and_a_small_subject_still_reflects_on_demand(g):
    seed_people(g)
    with pytest.raises(NotFound):
        g.reflect("user-nobody", now=NOW)
    res = g.reflect("user-bo", now=NOW)
    assert res.status == "proposed" and res.memories_reviewed == 4  # on demand: whatever the threshold
    g.config.reflection.enabled = True
    report = g.reflect_due(now=NOW)
    assert [r.entity_id for r in report.results] == ["user-ana"]  # the --due pass skips user-bo (4 < 10)


def test_the_due_pass_is_off_by_default_and_respects_the_daily_cap(g):
    seed_people(g)
    add_many(g, "user-cy", [f"Cy likes board game number {i}." for i in range(10)], namespace=NS, kind="preference")
    off = g.reflect_due(now=NOW)
    assert not off.enabled and off.results == [] and [d["subject"] for d in off.due] == ["user-ana", "user-cy"]
    g.config.reflection.enabled = True
    g.config.reflection.daily_cap = 1
    report = g.reflect_due(now=NOW)
    assert [(r.entity_id, r.status) for r in report.results] == [("user-ana", "proposed"), ("user-cy", "pending")]
    assert "daily cap" in report.results[1].reason
    assert len(g.proposals(kind="reflect")) == 1 and status(g, "user-cy-000") == "active"
    again = g.reflect_due(now=NOW + timedelta(days=1))  # the next day: the pending one is picked up
    assert {(r.entity_id, r.status) for r in again.results} == {("user-ana", "unchanged"), ("user-cy", "proposed")}


def test_same_memories_same_proposal_and_no_second_model_call(g, llm):
    seed_people(g)
    synth = use_llm(g, llm)
    llm.push(lambda req: answer(preferences=[("Prefers TypeScript", [short(req, "ana-01")])]))
    first = g.reflect("user-ana", now=NOW, synthesizer=synth)
    again = g.reflect("user-ana", now=NOW, synthesizer=synth)
    assert again.status == "unchanged" and again.proposal_id == first.proposal_id and len(llm.requests) == 1


def test_a_provider_error_stores_nothing(g, llm):
    seed_people(g)
    synth = use_llm(g, llm)
    llm.push({"status": 503}, {"status": 503}, {"status": 503})
    res = g.reflect("user-ana", now=NOW, synthesizer=synth)
    assert res.status == "failed" and "503" in res.reason and g.proposals(kind="reflect") == []


def test_reflection_model_resolution_order():
    cfg = Config(llm=LLMConfig(provider="offline", model="gpt-4o-mini"))
    assert reflection.resolve_model(cfg, "default", env={})["provider"] == "offline"
    cfg.llm.provider = "openai"
    assert reflection.resolve_model(cfg, "default", env={}) == {"provider": "openai", "model": "gpt-4o-mini",
                                                                "source": "[llm].model"}
    cfg.reflection.models = {"team-a": "qwen2.5-1.5b", "team-b": "offline"}
    assert reflection.resolve_model(cfg, "team-a", env={})["model"] == "qwen2.5-1.5b"
    assert reflection.resolve_model(cfg, "team-b", env={})["provider"] == "offline"
    assert reflection.resolve_model(cfg, "default", env={})["model"] == "gpt-4o-mini"
    env = {"GRAPHCONS_REFLECTION_MODEL": "llama-3-8b"}
    assert reflection.resolve_model(cfg, "team-a", env=env) == {
        "provider": "openai", "model": "llama-3-8b", "source": "$GRAPHCONS_REFLECTION_MODEL"}
    cfg.llm.base_url = "http://127.0.0.1:9/v1"
    synth = reflection.make_reflector(cfg, "team-a", env={})
    assert isinstance(synth, OpenAISynthesizer) and synth.model == "qwen2.5-1.5b"
    assert isinstance(reflection.make_reflector(cfg, "team-b", env={}), OfflineSynthesizer)


def test_cli_reflect_and_profile(g, neo4j_settings, tmp_path):
    import subprocess
    import sys

    seed_people(g)
    env = dict(os.environ, NEO4J_URI=neo4j_settings.uri, NEO4J_USER=neo4j_settings.user,
               NEO4J_PASSWORD=neo4j_settings.resolved_password())
    env.pop("GRAPHCONS_CONFIG", None)

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "graphcons", *args], capture_output=True, text=True, env=env,
                              cwd=tmp_path, timeout=180)

    out = cli("reflect", "--subject", "user-ana", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert list(data)[:7] == ["entity_id", "namespace", "insights", "memories_reviewed", "new_semantic_memories",
                              "profile_updated", "proposal_id"]
    assert data["entity_id"] == "user-ana" and data["namespace"] == NS and data["memories_reviewed"] == 15
    assert any("TypeScript" in i for i in data["insights"]) and any("train" in i for i in data["insights"])
    assert cli("reflect", "--subject", "user-nobody").returncode == 3
    assert cli("profile", "user-ana").returncode == 3  # no profile before approval
    assert cli("proposals", "approve", data["proposal_id"]).returncode == 0
    prof = json.loads(cli("profile", "user-ana", "--json").stdout)
    assert prof["version"] == 1 and any("TypeScript" in e["statement"] for e in prof["facts"])
    assert json.loads(cli("profile", "user-ana", "--history", "--json").stdout)[0]["version"] == 1
    due = json.loads(cli("reflect", "--due", "--json").stdout)
    assert due["enabled"] is False and due["results"] == []
    assert cli("reflect").returncode == 2


@pytest.mark.skipif(not os.environ.get("GRAPHCONS_TEST_LLM_BASE_URL"),
                    reason="set GRAPHCONS_TEST_LLM_BASE_URL (and GRAPHCONS_TEST_LLM_MODEL) to run against a real endpoint")
def test_real_openai_compatible_endpoint(g):
    """Opt-in: the same reflection against a real endpoint (OpenAI, Ollama, vLLM, llama.cpp server)."""
    g.config.llm = LLMConfig(provider="openai", base_url=os.environ["GRAPHCONS_TEST_LLM_BASE_URL"],
                             api_key=os.environ.get("GRAPHCONS_TEST_LLM_API_KEY") or None,
                             model=os.environ.get("GRAPHCONS_TEST_LLM_MODEL", "gpt-4o-mini"),
                             instructor_mode=os.environ.get("GRAPHCONS_TEST_LLM_MODE", "TOOLS"),
                             timeout_s=float(os.environ.get("GRAPHCONS_TEST_LLM_TIMEOUT", "600")), max_retries=2)
    seed_people(g)
    res = g.reflect("user-ana", now=NOW)
    print(json.dumps(res.to_dict(), indent=2, default=str))
    assert res.provider == "openai" and res.status in ("proposed", "ungrounded", "failed")
    warnings.warn(f"real endpoint {g.config.llm.model} at {g.config.llm.base_url}: {res.status}, "
                  f"{len(res.insights)} statement(s) citing {len((res.grounding or {}).get('cited') or [])} of "
                  f"{res.memories_reviewed} memories, {res.calls} call(s) {res.reason}", UserWarning)
    if res.status != "proposed":  # nothing may be stored
        assert g.proposals(kind="reflect") == []
    if res.status == "failed" and "not a valid" not in res.reason:
        pytest.skip(f"the endpoint did not answer: {res.reason}")
    # 15 explicit memories about one user (issue 31): an easy case a 1.5B instruction model grounds
    assert res.status == "proposed", f"the endpoint answered but the reflection was {res.status}: {res.reason}"
    p = g.proposal(res.proposal_id)
    assert p["cited"] and set(p["cited"]) <= set(p["member_ids"])
    d = g.approve(res.proposal_id, now=NOW)
    assert g.profile("user-ana")["version"] == 1 and d.consolidated == len(p["cited"])


def test_an_applied_consolidation_marks_members_consolidated_and_keeps_their_highest_importance(g):
    from graphcons.consolidation.cluster import Cluster

    for mid, imp, day in (("c-1", 0.3, 2), ("c-2", 0.9, 9), ("c-3", 0.5, 16)):
        g.add({"id": mid, "content": f"Checkout returned 503 after deploy 4.{day}; rolled back.", "subject": "checkout",
               "source": f"pager-{mid}", "kind": "incident", "importance": imp,
               "created_at": f"2026-11-{day:02d}T10:00:00+00:00"})
    out = g.synthesize(Cluster(member_ids=("c-1", "c-2", "c-3"), namespace="default", subject="checkout"), now=NOW)
    res = g.approve(out.proposal_id, now=NOW)
    assert g.get(res.insight_id).importance == 0.9
    assert [status(g, m) for m in ("c-1", "c-2", "c-3")] == ["consolidated"] * 3
    assert g.retrieve("checkout 503 after deploy", k=5, record=False)  # still retrievable
    g.revert(out.proposal_id, "wrong", now=NOW)
    assert [status(g, m) for m in ("c-1", "c-2", "c-3")] == ["active"] * 3


def _derived_pairs(g, pairs):
    """The pairs (either way round) where one memory is a reflection statement derived from the other."""
    rows = g.db.run_text("MATCH (s:Memory)-[:DERIVED_FROM]->(m:Memory) RETURN s.id AS s, m.id AS m")
    lineage = {frozenset((r["s"], r["m"])) for r in rows}
    return [p for p in pairs if frozenset((p.winner, p.loser)) in lineage]


def test_a_statement_and_the_memories_it_derives_from_are_never_merge_candidates(g):
    """Issue 41: after a reflection was approved every merge proposal was "merge m-... into sem-..."."""
    seed_people(g)
    g.approve(g.reflect("user-ana", now=NOW).proposal_id, now=NOW)
    dry = g.merge(now=NOW)
    assert dry.derived and all(_derived_pairs(g, [p]) for p in dry.derived)  # seen, and set aside
    for action in ("proposed", "applied", "conflicts", "related", "pending"):
        assert _derived_pairs(g, getattr(dry, action)) == [], action
    g.merge(dry_run=False, auto_apply=True, now=NOW)
    rows = g.db.run_text("MATCH (s:Memory)-[:DERIVED_FROM]->(m:Memory) "
                         "OPTIONAL MATCH (s)-[x:CONFLICTS_WITH|RELATED]-(m) "
                         "OPTIONAL MATCH (p:Proposal {kind: 'merge'})-[:ABOUT]->(s) WHERE (p)-[:ABOUT]->(m) "
                         "RETURN count(x) AS links, count(p) AS proposals, "
                         "collect(DISTINCT m.status) + collect(DISTINCT s.status) AS statuses")[0]
    assert rows["links"] == 0 and rows["proposals"] == 0 and "deprecated" not in rows["statuses"]


def test_merging_away_a_premise_withdraws_the_statement_that_rests_on_it(g):
    """Seed 002 / issue 41: a merge that deprecates a reflection statement's premise is seen by the
    justification machinery (premise lost, justification withdrawn, status unsupported, audited), and
    the automatic pass never retires such a premise unreviewed."""
    seed_people(g)
    d = g.approve(g.reflect("user-ana", now=NOW).proposal_id, now=NOW)
    ts = next(m["m"] for m in semantic(g, "user-ana") if "ana-01" in m["m"]["derived_from"])
    g.add({"id": "ana-01b", "content": "Ana prefers TypeScript over JavaScript for each new service.",
           "subject": "user-ana", "namespace": NS, "kind": "preference", "source": "chat:other", "importance": 1.0})
    auto = g.merge(dry_run=False, auto_apply=True, now=NOW)
    pair = next(p for p in auto.proposed if {p.winner, p.loser} == {"ana-01", "ana-01b"})
    assert pair.loser == "ana-01" and status(g, "ana-01") == "consolidated"  # proposed, not applied
    assert g.get(ts["id"]).epistemic_status == "hypothesis"

    pid = proposal_id(pair.winner, pair.loser)
    g.approve(pid, now=NOW)  # a reviewer merges the premise away
    assert status(g, "ana-01") == "deprecated" and ts["id"] in d.created
    assert g.get(ts["id"]).epistemic_status == "unsupported"
    lost = g.audit_log(op="premises_lost")[0]["details"]
    assert lost["change"] == "merge" and [j["insight"] for j in lost["justifications"]] == [ts["id"]]
    assert any(a["details"]["to"] == "unsupported" for a in g.audit_log(op="epistemic_transition")
               if a["targets"] == [ts["id"]])
    g.revert(pid, "the two were not the same", now=NOW)  # reversible: the premise holds again
    assert status(g, "ana-01") == "consolidated" and g.get(ts["id"]).epistemic_status == "hypothesis"


def test_an_approved_profile_statement_is_recalled_with_the_memories_it_cites(g):
    # issue 39, profiles are recall: a statement hit carries what it rests on, like an insight
    seed_people(g)
    res = g.reflect("user-ana", now=NOW)
    d = g.approve(res.proposal_id, now=NOW)
    hits = g.retrieve("Which language does Ana prefer for new services?", k=5, namespace=NS, record=False)
    statement = next(h for h in hits if h.memory.id in d.created and "TypeScript" in h.memory.content)
    derived = g.db.run_text("MATCH (:Memory {id: $id})-[:DERIVED_FROM]->(s) RETURN collect(s.id) AS ids",
                            id=statement.memory.id)[0]["ids"]
    assert [m.memory.id for m in statement.members] == sorted(derived) == ["ana-01"]
    shown = [h.memory.id for h in hits]
    assert "ana-01" not in shown  # carried by the statement, not shown twice


# -- issue 50: a statement and the memories it derives from are one piece of evidence -------------
def _restating_statement(g):
    """The people scenario with its offline reflection approved: (decision, the statement restating ana-01)."""
    seed_people(g)
    d = g.approve(g.reflect("user-ana", now=NOW).proposal_id, now=NOW)
    return d, next(m["m"]["id"] for m in semantic(g, "user-ana") if m["m"]["derived_from"] == ["ana-01"])


def _insight_over(g, statement):
    """An applied insight over ana-01..03 and the statement: the statement is one of its premises."""
    from graphcons.consolidation.cluster import Cluster

    cluster = Cluster(member_ids=("ana-01", "ana-02", "ana-03", statement), namespace=NS, subject="user-ana")
    out = g.synthesize(cluster, now=NOW)
    assert statement in g.proposal(out.proposal_id)["cited"]
    return out.proposal_id, g.approve(out.proposal_id, now=NOW).insight_id


def test_a_statement_adds_no_source_to_an_insight_over_the_memories_it_derives_from(g):
    # every memory here is from chat:user-ana; the statement was written by graphcons:reflect from ana-01
    _, ts = _restating_statement(g)
    pid, iid = _insight_over(g, ts)
    p = g.proposal(pid)
    assert p["grounding"]["sources"] == ["chat:user-ana"] and p["insight"]["confidence"] == 0.45
    assert [c["confirmations"] for c in p["insight"]["claims"]] == [1]
    assert g.get(iid).content.endswith("1 distinct source(s): chat:user-ana.")


def test_an_insight_hit_carries_the_source_episodes_explain_lists_below_a_statement(g):
    # issue 60: what MCP's recall shows of an insight comes with the hit (no explain per hit); below a
    # statement it summarises, its source is the memory the statement derives from, as explain says
    _, ts = _restating_statement(g)
    _, iid = _insight_over(g, ts)
    insight = g.get(iid)
    (hit,) = [h for h in g.retrieve(insight.content, k=10, namespace=NS, insights="plain", record=False)
              if h.memory.id == iid]
    sources = [s["id"] for s in g.explain(iid)["sources"]]
    assert ts in insight.summarizes and ts not in sources and "ana-01" in sources
    assert hit.source_episodes == sources


def test_reverting_a_reflection_withdraws_what_rests_on_its_statements(g):
    d, ts = _restating_statement(g)
    _, iid = _insight_over(g, ts)
    (j,) = g.epistemics(iid)["justifications"]
    assert {"id": ts, "version": 1, "required": True, "status": "holding"} in j["premises"]
    g.revert(d.proposal_id, "wrong", now=NOW + timedelta(days=1))
    assert status(g, ts) == "deprecated"
    ep = g.epistemics(iid)
    (j,) = ep["justifications"]
    premise = next(x for x in j["premises"] if x["id"] == ts)
    assert premise["status"] == "lost" and f"reflection {d.proposal_id} reverted" in premise["lost_cause"]
    assert j["status"] == "withdrawn" and ep["epistemic_status"] == "unsupported" == g.get(iid).epistemic_status
    lost = g.audit_log(op="premises_lost")[0]["details"]
    assert lost["change"] == "deprecate" and [x["insight"] for x in lost["justifications"]] == [iid]


def test_a_statement_is_never_merged_into_a_sibling_memory_as_evidence(g):
    from graphcons.maintenance.merge import job as merge_job
    from graphcons.maintenance.merge.score import Pair

    _, ts = _restating_statement(g)
    g.add({"id": "ana-01b", "content": "Ana prefers TypeScript over JavaScript for each new service.",
           "subject": "user-ana", "namespace": NS, "kind": "preference", "source": "chat:other", "importance": 1.0})
    auto = g.merge(dry_run=False, auto_apply=True, now=NOW)
    assert any({p.a, p.b} == {ts, "ana-01b"} for p in auto.conclusions)  # seen, and set aside
    for action in ("proposed", "applied", "conflicts", "related", "pending"):
        assert not [p for p in getattr(auto, action) if ts in (p.a, p.b)], action
    assert status(g, ts) == "active" and g.get("ana-01b").sources == ["chat:other"]
    # a merge proposal made before (or by hand) retires the statement but adds none of its sources
    pair = Pair(a="ana-01b", b=ts, score=0.95, title_sim=0.95, cosine=0.95, rule="test", winner="ana-01b", loser=ts,
                namespace=NS, subject="user-ana", versions=(1, 1))
    with g.db.transaction() as tx:
        merge_job._propose(tx, pair, NOW, "test-run", g.config.merge)
    g.approve(pair.proposal_id, now=NOW)
    winner = g.get("ana-01b")
    assert status(g, ts) == "deprecated" and winner.sources == ["chat:other"] and winner.evidence_count == 1


def test_a_profile_never_shows_a_retired_statement_as_current(g):
    _, ts = _restating_statement(g)
    entry = next(e for e in g.profile("user-ana")["facts"] if e["id"] == ts)
    assert entry["status"] == "current"
    g.retire(ts, reason="not true any more", now=NOW)
    entry = next(e for e in g.profile("user-ana")["facts"] if e["id"] == ts)
    assert entry["status"] == status(g, ts) == "archived"
    assert next(e for e in g.profile_history("user-ana")[0]["facts"] if e["id"] == ts)["status"] == "current"


def test_a_reflection_that_contradicts_a_statement_contests_what_rests_on_it_until_reverted(g, llm):
    """Seed 002 / issue 50: the CONFLICTS_WITH a reflection opens between opposite statements is seen by
    the premise machinery in its own transaction, and its revert (which closes it) reinstates the premise."""
    from graphcons.consolidation.cluster import Cluster

    seed_people(g)
    g.approve(g.reflect("user-ana", now=NOW).proposal_id, now=NOW)  # offline: restates ana-04 as a fact
    train = next(m["m"]["id"] for m in semantic(g, "user-ana") if m["m"]["derived_from"] == ["ana-04"])
    out = g.synthesize(Cluster(member_ids=("ana-04", "ana-05", train), namespace=NS, subject="user-ana"), now=NOW)
    assert train in g.proposal(out.proposal_id)["cited"]
    iid = g.approve(out.proposal_id, now=NOW).insight_id
    flies, strikes = ("Ana no longer takes the train for trips under 500 km since the strikes.",
                      "Ana said she no longer takes the train for trips under 500 km.")
    add_many(g, "user-ana", [flies, strikes], namespace=NS, start=100, kind="episode")
    synth = use_llm(g, llm)
    llm.push(lambda req: answer(facts=[("Ana no longer takes the train for trips under 500 km",
                                        [short(req, flies), short(req, strikes)])]))
    later = NOW + timedelta(days=7)
    second = g.approve(g.reflect("user-ana", now=later, synthesizer=synth).proposal_id, now=later)
    assert g.db.run_text("MATCH (:Memory {id: $a})-[c:CONFLICTS_WITH]->(:Memory {id: $b}) RETURN c.status AS s",
                         a=second.created[0], b=train) == [{"s": "open"}]
    (j,) = g.epistemics(iid)["justifications"]
    assert next(x for x in j["premises"] if x["id"] == train)["status"] == "lost"
    assert j["status"] == "withdrawn" and g.get(iid).epistemic_status == "unsupported"
    g.revert(second.proposal_id, "not a contradiction", now=later + timedelta(days=1))
    (j,) = g.epistemics(iid)["justifications"]
    assert next(x for x in j["premises"] if x["id"] == train)["status"] == "holding"
    assert j["status"] == "standing" and g.get(iid).epistemic_status == "hypothesis"


def test_a_later_reflection_never_confirms_a_retired_statement(g):
    """Issue 50: a statement taken out of use stays out; the same statement said again is a new one."""
    _, ts = _restating_statement(g)
    g.retire(ts, reason="not true any more", now=NOW)
    add_many(g, "user-ana", ["Ana still prefers TypeScript over JavaScript for every new service."], namespace=NS,
             start=100, kind="preference")
    later = NOW + timedelta(days=7)
    d = g.approve(g.reflect("user-ana", now=later).proposal_id, now=later)
    assert ts not in d.confirmed and status(g, ts) == "archived"
    facts = g.profile("user-ana")["facts"]
    again = [e for e in facts if "TypeScript" in e["statement"] and e["id"] != ts]
    assert len(again) == 1 and again[0]["id"] in d.created and again[0]["status"] == "current"
    assert next(e for e in facts if e["id"] == ts)["status"] == "archived"
