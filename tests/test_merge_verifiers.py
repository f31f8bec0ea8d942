"""The merge verifiers behind `[merge] verifier`: llm (over the real OpenAI protocol to a local
replay server, on a real Neo4j) and onnx (on a tiny model and tokenizer this file builds)."""

import json
import math
import warnings
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from llm_server import FakeLLM, needs_real_endpoint, real_endpoint, request_text, use_verifier, verdicts_by_pair

from graphcons.core.config import MergeConfig, load_config
from graphcons.core.errors import ConfigError
from graphcons.maintenance.merge import verifiers
from graphcons.maintenance.merge.score import CONFLICT, DUPLICATE, NOTHING, score_pair
from graphcons.maintenance.merge.verify_onnx import OnnxVerifier

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)

PAIRS = {  # subject -> two texts the difference check passes; what the model is scripted to answer
    "checkout": ("The checkout service returned 503 errors after deploy 4.2.",
                 "After deploy 4.2 the checkout service returned 503 errors.", "duplicate"),
    "dashboard": ("The user likes the new dashboard layout.",
                  "The user finds the new dashboard layout confusing.", "conflict"),
    "meetings": ("The team holds its standup in the big meeting room.",
                 "The team holds its retro in the big meeting room.", "different"),
}


# The model's own answers that agree with each label (merge/verify_llm.py checks they do).
ANSWERS = {"duplicate": (True, True, False), "conflict": (True, False, False),
           "near_paraphrase_with_difference": (True, True, True), "different": (False, True, False)}


def verdict_args(verdict, reason=None, answers=None):
    same, both, adds = answers or ANSWERS[verdict]
    return {"args": {"reason": reason or f"scripted {verdict}", "same_subject": same, "both_true": both,
                     "adds_detail": adds, "verdict": verdict}}


@pytest.fixture
def llm():  # the recorded answers: the verdict of whichever pair the request shows
    with FakeLLM(fallback=verdicts_by_pair(PAIRS, verdict_args, "different")) as server:
        yield server


def use_llm(g, server, **merge):
    use_verifier(g, server, "merge", **merge)


def add_pairs(g, subjects=tuple(PAIRS)):
    ids = {}
    for s in subjects:
        a, b, _ = PAIRS[s]
        ids[s] = (g.add({"title": a, "content": a, "subject": s, "created_at": NOW - timedelta(days=1)}).id,
                  g.add({"title": b, "content": b, "subject": s, "created_at": NOW - timedelta(days=1)}).id)
    return ids


def merge_state(g):
    return (g.db.run_text("MATCH (p:Proposal {kind: 'merge'}) RETURN p.id AS id, p.memory_ids AS m ORDER BY id"),
            g.db.run_text("MATCH (a)-[r:CONFLICTS_WITH|RELATED]->(b) RETURN a.id AS a, type(r) AS t, b.id AS b "
                          "ORDER BY a, t, b"))


def test_llm_verdicts_decide_the_outcome_and_are_not_asked_twice(g, llm):
    use_llm(g, llm)
    ids = add_pairs(g)
    report = g.merge(dry_run=False, now=NOW)
    assert len(llm.requests) == 3
    (proposed,) = report.proposed
    assert {proposed.winner, proposed.loser} == set(ids["checkout"])
    assert proposed.verifier == "llm" and proposed.verdict_reason == "scripted duplicate"
    (conflict,) = report.conflicts
    assert {conflict.a, conflict.b} == set(ids["dashboard"])
    assert conflict.contradictions == ["llm verifier: scripted conflict"]
    assert not report.related and not report.pending
    links = g.db.run_text("MATCH (a)-[c:CONFLICTS_WITH]->(b) RETURN c.reasons AS reasons")
    assert links == [{"reasons": ["llm verifier: scripted conflict"]}]
    verdicts = g.audit_log(op="merge_verdict")
    assert sorted(v["details"]["verdict"] for v in verdicts) == ["conflict", "different", "duplicate"]
    # the memory text reaches the model only inside the fence, as data
    for req in llm.requests:
        system, user = req["messages"][0]["content"], req["messages"][1]["content"]
        fence = user.split("\n\n", 1)[1].split(" ", 1)[0]
        assert fence.startswith("@@MEMORY-") and fence in system and "DATA" in system
    # a second pass asks nothing: decided pairs are known, the `different` one is read back from its verdict
    before = merge_state(g)
    again = g.merge(dry_run=False, now=NOW)
    assert len(llm.requests) == 3 and merge_state(g) == before and not again.pending


def test_secrets_are_redacted_before_the_call(g, llm):
    use_llm(g, llm)
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    a = f"The deploy bot token is {secret} for the staging box."
    b = f"For the staging box the deploy bot token is {secret}."
    g.add({"title": a, "content": a, "subject": "bot"})
    g.add({"title": b, "content": b, "subject": "bot"})
    g.merge(dry_run=False, now=NOW)
    assert llm.requests and all(secret not in json.dumps(r) for r in llm.requests)
    assert "[REDACTED:" in request_text(llm.requests[0])
    (verdict,) = g.audit_log(op="merge_verdict")
    assert verdict["details"]["redactions"]["github_token"] >= 2  # counted on the audit record, as synthesis does


def test_a_spent_run_budget_leaves_pairs_pending_for_the_next_run(g, llm):
    g.config.llm.max_calls_per_run = 1
    use_llm(g, llm)
    g.config.llm.max_calls_per_run = 1
    add_pairs(g, ("checkout", "dashboard"))
    first = g.merge(dry_run=False, now=NOW)
    assert len(llm.requests) == 1 and len(first.pending) == 1
    assert "[llm] max_calls_per_run" in first.pending[0].pending
    decided = len(first.proposed) + len(first.conflicts)
    assert decided == 1  # the pending pair is neither merged, linked, nor judged by a weaker rule
    second = g.merge(dry_run=False, now=NOW)
    assert len(llm.requests) == 2 and not second.pending
    assert len(first.proposed + second.proposed) == 1 and len(first.conflicts + second.conflicts) == 1


def test_the_daily_cap_counts_the_days_calls_across_runs(g, llm):
    use_llm(g, llm, llm_daily_cap=1)
    add_pairs(g, ("checkout", "dashboard"))
    g.merge(dry_run=False, now=NOW)
    second = g.merge(dry_run=False, now=NOW + timedelta(hours=1))
    assert len(llm.requests) == 1 and len(second.pending) == 1
    assert "[merge] llm_daily_cap" in second.pending[0].pending
    g.merge(dry_run=False, now=NOW + timedelta(days=1))  # a new UTC day
    assert len(llm.requests) == 2


def test_a_provider_failure_writes_nothing_and_falls_back_to_nothing(g, llm):
    use_llm(g, llm)
    add_pairs(g, ("checkout",))
    llm.push({"status": 503})
    report = g.merge(dry_run=False, now=NOW)
    assert not report.proposed and len(report.pending) == 1
    assert "HTTP 503" in report.pending[0].pending
    assert merge_state(g) == ([], [])
    assert g.merge(dry_run=False, now=NOW).proposed  # the next run asks again


def test_a_dry_run_asks_but_records_nothing(g, llm):
    use_llm(g, llm)
    add_pairs(g, ("checkout",))
    report = g.merge(now=NOW)
    assert len(report.proposed) == 1 and len(llm.requests) == 1
    assert merge_state(g) == ([], []) and not g.audit_log(op="merge_verdict")


def test_the_llm_verifier_needs_an_llm(g):
    g.config.merge.verifier = "llm"
    with pytest.raises(ConfigError, match="merge.verifier"):
        g.merge(now=NOW)


@needs_real_endpoint
def test_real_openai_compatible_endpoint(g):
    """Opt-in: the llm verifier against a real endpoint (same variables as test_synthesis's one).

    A weak model may misjudge a pair (reported as a warning); what fails: a pair the model did
    not call a duplicate being proposed, or a verdict outside the four."""
    g.config.llm = real_endpoint()
    g.config.merge.verifier = "llm"
    add_pairs(g)
    report = g.merge(dry_run=False, now=NOW)
    verdicts = {tuple(v["targets"][1:]): v["details"] for v in g.audit_log(op="merge_verdict")}
    assert verdicts and all(v["verdict"] in (None, "duplicate", "near_paraphrase_with_difference", "conflict",
                                             "different") for v in verdicts.values())
    for p in report.proposed:
        assert verdicts[(p.a, p.b)]["verdict"] == "duplicate"
    got = {k: (v["verdict"], v["reason"] or v["error"]) for k, v in verdicts.items()}
    warnings.warn(f"real endpoint {g.config.llm.model}: {got}", UserWarning)


# -- onnx -------------------------------------------------------------------------------------
WORDS = ["the", "build", "is", "fast", "slow", "very", "flaky"]
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]


def write_tokenizer(path):
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    vocab = {w: i for i, w in enumerate(SPECIAL + WORDS)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
                                                       special_tokens=[("[CLS]", 2), ("[SEP]", 3)])
    tok.save(str(path))
    return str(path)


def write_model(path, table, *, input_name="attention_mask"):
    """score[n] = sum over tokens t of mask[n, t] * table[ids[n, t]]: one logit per column of table."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    table = np.asarray(table, dtype=np.float32)
    cols = table.shape[1]
    nodes = [helper.make_node("Gather", ["table", "input_ids"], ["per_token"], axis=0),  # [N, L, C]
             helper.make_node("Cast", [input_name], ["maskf"], to=TensorProto.FLOAT),
             helper.make_node("Unsqueeze", ["maskf", "minus1"], ["mask3"]),  # [N, L, 1]
             helper.make_node("Mul", ["per_token", "mask3"], ["masked"]),
             helper.make_node("ReduceSum", ["masked", "axis1"], ["logits"], keepdims=0)]  # [N, C]
    graph = helper.make_graph(
        nodes, "tiny-cross-encoder",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["N", "L"]),
         helper.make_tensor_value_info(input_name, TensorProto.INT64, ["N", "L"])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", cols])],
        initializer=[numpy_helper.from_array(table, "table"),
                     numpy_helper.from_array(np.array([-1], dtype=np.int64), "minus1"),
                     numpy_helper.from_array(np.array([1], dtype=np.int64), "axis1")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return str(path)


def token_table(weights, cols=1):
    table = np.zeros((len(SPECIAL) + len(WORDS), cols), dtype=np.float32)
    vocab = SPECIAL + WORDS
    for word, w in weights.items():
        table[vocab.index(word)] = w
    return table


def pair_of(cfg, a, b):
    mem = lambda i, t: {"id": i, "content": t, "title": "", "title_derived": True, "effective_weight": 0.5,  # noqa: E731
                        "evidence_count": 1, "version": 1, "namespace": "default", "subject": "s"}
    return score_pair(mem("m-a", a), mem("m-b", b), 0.97, cfg)


def test_onnx_cross_encoder_loads_and_scores_a_pair(tmp_path):
    tok = write_tokenizer(tmp_path / "tokenizer.json")
    # [CLS] +1, each "fast" +2, each "slow" -3: a hand-checkable logit
    model = write_model(tmp_path / "ce.onnx", token_table({"[CLS]": 1.0, "fast": 2.0, "slow": -3.0}))
    cfg = load_config(env={"GRAPHCONS__MERGE__VERIFIER": "onnx", "GRAPHCONS__MERGE__ONNX_MODEL": model,
                           "GRAPHCONS__MERGE__ONNX_TOKENIZER": tok}).merge
    p = pair_of(cfg, "The build is fast", "The build is very fast")
    assert p.verifier == "onnx" and p.outcome == DUPLICATE
    assert p.p_duplicate == pytest.approx(1 / (1 + math.exp(-5.0)), abs=1e-6)  # 1 + 2 + 2
    slow = pair_of(cfg, "The build is slow", "The build is very slow")
    assert slow.p_duplicate == pytest.approx(1 / (1 + math.exp(5.0)), abs=1e-6)  # 1 - 3 - 3
    assert slow.outcome != DUPLICATE


def test_onnx_nli_model_makes_contradictions_conflicts(tmp_path):
    tok = write_tokenizer(tmp_path / "tokenizer.json")
    # columns: contradiction, entailment, neutral
    table = token_table({"[CLS]": [0.0, 1.0, 0.0], "fast": [0.0, 1.0, 0.0], "flaky": [4.0, 0.0, 0.0]}, cols=3)
    model = write_model(tmp_path / "nli.onnx", table)
    cfg = MergeConfig(verifier="onnx", onnx_model=model, onnx_tokenizer=tok,
                      onnx_labels=["contradiction", "entailment", "neutral"])
    same = pair_of(cfg, "The build is fast", "The build is fast")
    assert same.outcome == DUPLICATE
    assert same.p_duplicate == pytest.approx(math.exp(3) / (math.exp(3) + 2), abs=1e-6)
    opposite = pair_of(cfg, "The build is fast", "The build is flaky")  # the guard knows no such pair
    assert opposite.outcome == CONFLICT and opposite.contradictions[0].startswith("onnx verifier: nli contradiction")


def test_onnx_settings_that_do_not_fit_are_named(tmp_path):
    tok = write_tokenizer(tmp_path / "tokenizer.json")
    model = write_model(tmp_path / "ce.onnx", token_table({"fast": 1.0}))
    with pytest.raises(ConfigError, match="merge.onnx_model: not set"):
        OnnxVerifier(None, tok)
    with pytest.raises(ConfigError, match="merge.onnx_model: no such file"):
        OnnxVerifier(str(tmp_path / "missing.onnx"), tok)
    with pytest.raises(ConfigError, match="merge.onnx_tokenizer: no such file"):
        OnnxVerifier(model, str(tmp_path / "missing.json"))
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(ConfigError, match="merge.onnx_tokenizer: not a tokenizers"):
        OnnxVerifier(model, str(tmp_path / "bad.json"))
    with pytest.raises(ConfigError, match="merge.onnx_labels: the model gives 1 score"):
        OnnxVerifier(model, tok, ["contradiction", "entailment", "neutral"])
    with pytest.raises(ConfigError, match="merge.onnx_labels: .* no 'entailment'"):
        OnnxVerifier(model, tok, ["yes", "no"])
    odd = write_model(tmp_path / "odd.onnx", token_table({"fast": 1.0}), input_name="pixel_values")
    with pytest.raises(ConfigError, match=r"merge.onnx_model: inputs \['input_ids', 'pixel_values'\]"):
        OnnxVerifier(odd, tok)
    (tmp_path / "junk.onnx").write_bytes(b"not a model")
    with pytest.raises(ConfigError, match="merge.onnx_model: onnxruntime cannot load"):
        OnnxVerifier(str(tmp_path / "junk.onnx"), tok)


def test_the_rules_verifier_is_the_default_and_names_are_checked():
    assert verifiers.default(MergeConfig()).name == "rules"
    p = pair_of(MergeConfig(), "The build is fast", "The build is fast")
    assert p.verifier == "rules" and p.outcome in (DUPLICATE, NOTHING)
    with pytest.raises(ConfigError, match="merge.verifier"):
        verifiers.default(MergeConfig(verifier="llm"))
