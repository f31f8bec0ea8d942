"""Weights and Ebbinghaus decay: the formula, its direction, and the batched pass."""

import math
from datetime import datetime, timedelta, timezone

import pytest

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
    assert rec["details"]["changes"][ids[0]]["before"] == 0.5
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
