"""Weights and Ebbinghaus decay: the formula, its direction, and the batched pass."""

import math
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphcons.core import weights
from graphcons.core.config import WeightsConfig
from graphcons.core.errors import ValidationError
from graphcons.maintenance.weights import effective_weight, retention, stability_days
from graphcons.store import coaccess

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)
T0 = NOW - timedelta(days=60)


def weights_of(g, mem_id):
    return g.db.run_text("MATCH (m:Memory {id: $id}) RETURN m.weight_decay AS decay, m.effective_weight AS w, "
                         "m.stability AS s, m.weight_usage AS usage", id=mem_id)[0]


def test_formula_is_ebbinghaus_with_stability_growing_per_access():
    cfg = WeightsConfig()
    assert retention(0, 7) == 1.0
    assert retention(7, 7) == pytest.approx(math.exp(-1))
    s0, s5 = stability_days(0, cfg), stability_days(5, cfg)
    assert s0 == cfg.base_stability_days and s5 > s0
    # same idle time: the reinforced memory keeps more (MemoryBank's exp(-t/5*S) inverted this)
    assert retention(30, s5) > retention(30, s0)
    # the weighted mean of the components times the decay
    assert effective_weight(1, 1, 1, 1, 0.5, cfg) == pytest.approx(0.5)
    assert effective_weight(0.5, 0.5, 0.0, 0.5, 1.0, cfg) == pytest.approx(0.4)


def test_a_memory_accessed_more_decays_slower(g):
    strong = g.add({"content": "Rollback procedure for the payments DB", "subject": "db", "created_at": T0}).id
    weak = g.add({"content": "Lunch menu changed on Friday", "subject": "office", "created_at": T0}).id
    last = T0 + timedelta(days=1)
    for i in range(5):
        coaccess.record_access(g.db, g.config, f"s{i}", [strong], now=last)
    coaccess.record_access(g.db, g.config, "s-weak", [weak], now=last)

    g.decay(dry_run=False, now=last + timedelta(days=10))
    s10, w10 = weights_of(g, strong), weights_of(g, weak)
    g.decay(dry_run=False, now=last + timedelta(days=40))
    s40, w40 = weights_of(g, strong), weights_of(g, weak)

    assert s10["s"] > w10["s"]  # stability grew with each access
    assert s10["decay"] > w10["decay"] and s40["decay"] > w40["decay"]
    assert s40["w"] > w40["w"]
    # and relative to where it was, the stronger memory lost less over the same 30 days
    assert s40["decay"] / s10["decay"] > w40["decay"] / w10["decay"]
    assert s40["decay"] < s10["decay"]  # it still decays without new use


def test_recompute_writes_batches_audits_and_a_second_run_changes_nothing(g):
    g.config.weights.batch_size = 2  # several pages
    ids = [g.add({"content": f"Incident note number {i} about disk pressure", "subject": "disk",
                  "created_at": T0 + timedelta(days=i)}).id for i in range(5)]
    g.add({"content": "A proposed note about fans", "subject": "x", "status": "proposed", "created_at": T0})
    seen = []
    dry = g.recompute_weights(now=NOW, progress=seen.append)
    assert dry["changed"] == 6 and sum(seen) == 6
    assert weights_of(g, ids[0])["decay"] == 1.0  # dry run wrote nothing

    first = g.recompute_weights(dry_run=False, now=NOW)
    assert first["scanned"] == 6 and first["changed"] == 6
    w = weights_of(g, ids[0])
    assert w["decay"] == pytest.approx(math.exp(-60 / 7)) and w["w"] < 0.1
    batches = g.audit_log(op="weights")
    assert len(batches) == 3 and set(ids) < {t for b in batches for t in b["targets"]}
    rec = next(b for b in batches if ids[0] in b["targets"])
    assert rec["details"]["changes"][ids[0]]["before"] == pytest.approx(0.4)  # as admitted
    assert rec["details"]["changes"][ids[0]]["after"] == pytest.approx(w["w"])
    assert rec["details"]["rule"].startswith("effective") and rec["run_id"] == first["run_id"]

    props = g.db.run_text("MATCH (m:Memory) RETURN m {.*, embedding: null} AS m ORDER BY m.id")
    second = g.recompute_weights(dry_run=False, now=NOW)
    assert second["changed"] == 0
    assert g.db.run_text("MATCH (m:Memory) RETURN m {.*, embedding: null} AS m ORDER BY m.id") == props
    assert len(g.audit_log(op="weights")) == 3


def test_time_must_be_timezone_aware(g):
    with pytest.raises(ValidationError) as exc:
        g.decay(now=datetime(2026, 11, 29))
    assert exc.value.field == "now"


def test_a_new_memory_is_stored_with_the_formulas_weight(g):
    """Issue 41: admission stored the importance (0.5) where the formula gives 0.4, so the first
    'useful' rating lowered the weight. Admission now stores the formula's value as of the memory's
    creation, whatever the clock at admission (a decision must not depend on it)."""
    plain = g.add({"content": "Rotate the API keys every quarter", "subject": "security", "created_at": NOW}).id
    old = g.add({"content": "The office moved to the third floor", "subject": "office", "importance": 0.9,
                 "confidence": 1.0, "created_at": T0}, now=NOW).id
    later = g.add({"content": "The office moved to the fourth floor", "subject": "office", "importance": 0.9,
                   "confidence": 1.0, "created_at": T0}, now=NOW + timedelta(days=300)).id
    cfg = WeightsConfig()
    assert weights_of(g, plain)["w"] == pytest.approx(effective_weight(0.5, 0.5, 0.0, 0.5, 1.0, cfg)) == 0.4
    assert weights_of(g, old)["w"] == weights_of(g, later)["w"] == pytest.approx(effective_weight(0.9, 1.0, 0, 0.5, 1, cfg))
    run = g.decay(now=NOW)  # the weights job at NOW agrees with the new memory and decays the old ones
    assert sorted(s["id"] for s in run["sample"]) == sorted([old, later]) and run["changed"] == 2
    assert all(s["after"] == pytest.approx(s["before"] * math.exp(-60 / 7)) for s in run["sample"])


@pytest.mark.parametrize("state", ["new", "decayed", "rated wrong", "used, not recomputed", "important, edited",
                                   "insight"])
def test_useful_never_lowers_a_weight(g, state):
    """Seed 003 / issue 41: 'useful' raises the feedback component and nothing else, whatever the
    memory's history; the answer's before is the stored weight and the after is stored."""
    later = NOW + timedelta(days=30)  # the rating comes long after the last weights run
    mid = g.add({"content": "Warm the Redis cache before a failover", "subject": "redis",
                 "kind": "insight" if state == "insight" else "observation", "created_at": T0}, now=T0).id
    if state == "decayed":
        g.decay(dry_run=False, now=NOW)
    elif state == "rated wrong":
        g.feedback(mid, "wrong", now=NOW)
        g.feedback(mid, "wrong", now=NOW)
    elif state == "used, not recomputed":
        for i in range(3):
            coaccess.record_access(g.db, g.config, f"s{i}", [mid], now=NOW)
    elif state == "important, edited":
        g.edit(mid, importance=0.95)
    for i in range(3):  # three raters: one rater counts once per memory (issue 50)
        before = g.get(mid)
        out = g.feedback(mid, "useful", by=f"rater-{i}", now=later)
        after = g.get(mid)
        assert out["effective_weight_before"] == pytest.approx(before.effective_weight)
        assert out["effective_weight"] == pytest.approx(after.effective_weight)
        assert after.effective_weight > before.effective_weight
        # stored and computed agree: the formula over the stored components gives the stored weight
        assert after.effective_weight == pytest.approx(weights.stored(after.model_dump(), g.config.weights))


@given(manual=st.floats(0, 1), confidence=st.floats(0, 1), usage=st.floats(0, 1), decay=st.floats(0.001, 1),
       useful=st.integers(0, 50), wrong=st.integers(0, 50))
def test_a_useful_rating_raises_the_formulas_weight_from_any_state(manual, confidence, usage, decay, useful, wrong):
    cfg = WeightsConfig()
    props = {"weight_manual": manual, "weight_confidence": confidence, "weight_usage": usage, "weight_decay": decay}
    rated = useful + wrong
    before = weights.stored(props, cfg, feedback=(useful + 1) / (rated + 2))
    after = weights.stored(props, cfg, feedback=(useful + 2) / (rated + 3))
    assert after > before
