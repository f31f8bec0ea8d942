"""Weights: the one place where a memory's effective weight is computed (admission, feedback and
the weights job all call `compute` / `effective_weight` here, so stored and computed weights agree).

Five components, each in [0, 1] (seed 003, "modelo composto de 5 componentes"):

    manual      m.weight_manual       the importance a person gave it (admission: importance)
    confidence  m.weight_confidence   how sure the writer was
    usage       m.weight_usage        1 - exp(-access_count / usage_saturation)
    feedback    m.weight_feedback     explicit feedback (0.5 = none yet)
    decay       m.weight_decay        Ebbinghaus retention R = exp(-t / S)

    effective_weight = (c_manual*manual + c_confidence*confidence + c_usage*usage
                        + c_feedback*feedback) / (c_manual + c_confidence + c_usage + c_feedback)
                       * decay

The coefficients c_* are `[weights] manual, confidence, usage, feedback`. Decay multiplies
rather than adds, so a memory nobody uses fades towards 0 whatever its other components.

Ebbinghaus decay: t = days since the last access (or since creation, never accessed);
S = stability in days, which GROWS with each access (reinforcement):

    S = min(max_stability_days, base_stability_days * (1 + reinforcement * access_count))

so after the same idle time a memory used more often keeps a higher retention. (MemoryBank
wrote `exp(-t / 5*S)`, i.e. exp(-t*S/5): the stronger a memory, the faster it decayed.
Here S is always a divisor; tests/test_weights.py pins the direction.)

Admission stores `compute(new memory, its created_at)`: the weights as of its creation (decay 1,
no use), a function of the input alone, never of the clock; the weights job decays it from there. A
new memory with the default importance and confidence (0.5 each) weighs 0.4, not its importance
(issue 41: storing the importance made the first 'useful' rating lower the weight to the formula's). The batched
pass over the store is graphcons.maintenance.weights.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from graphcons.core.config import WeightsConfig

RULE = "effective = weighted_mean(manual, confidence, usage, feedback) * exp(-t/S); S = S0*(1 + r*accesses)"


def usage_component(access_count: int, cfg: WeightsConfig) -> float:
    return 1.0 - math.exp(-max(0, access_count) / cfg.usage_saturation)


def stability_days(access_count: int, cfg: WeightsConfig) -> float:
    """S grows with every access: more use, slower forgetting."""
    s = cfg.base_stability_days * (1.0 + cfg.reinforcement * max(0, access_count))
    return min(cfg.max_stability_days, s)


def retention(elapsed_days: float, stability: float) -> float:
    """Ebbinghaus: R = e^(-t/S), with t and S in days; t < 0 counts as 0."""
    return math.exp(-max(0.0, elapsed_days) / stability)


def effective_weight(manual: float, confidence: float, usage: float, feedback: float, decay: float,
                     cfg: WeightsConfig) -> float:
    """The formula, written once (see the module docstring)."""
    coef = (cfg.manual, cfg.confidence, cfg.usage, cfg.feedback)
    total = sum(coef)
    base = (sum(c * v for c, v in zip(coef, (manual, confidence, usage, feedback))) / total) if total else 0.0
    return max(0.0, min(1.0, base * decay))


def compute(props: dict[str, Any], now: datetime, cfg: WeightsConfig) -> dict[str, float]:
    """New usage, stability, decay and effective weight of one memory at time `now`."""
    n = int(props.get("access_count") or 0)
    ref = props.get("last_accessed") or props.get("created_at")
    elapsed = (now - ref).total_seconds() / 86400.0 if ref is not None else 0.0
    s = stability_days(n, cfg)
    decay = retention(elapsed, s)
    usage = usage_component(n, cfg)

    def comp(key: str, default: float) -> float:
        v = props.get(key)
        return float(default if v is None else v)

    eff = effective_weight(comp("weight_manual", 0.5), comp("weight_confidence", 0.5), usage,
                           comp("weight_feedback", 0.5), decay, cfg)
    return {"weight_usage": round(usage, 12), "stability": round(s, 12),
            "weight_decay": round(decay, 12), "effective_weight": round(eff, 12)}


def stored(props: dict[str, Any], cfg: WeightsConfig, **override: float) -> float:
    """The effective weight of a memory's stored components (usage and decay as the last
    computation left them), with `override` replacing some: feedback changes one component and
    leaves decay to the weights job, so a 'useful' rating can only raise the weight."""
    comp = {"manual": props.get("weight_manual"), "confidence": props.get("weight_confidence"),
            "usage": props.get("weight_usage"), "feedback": props.get("weight_feedback"),
            "decay": props.get("weight_decay")}
    defaults = {"manual": 0.5, "confidence": 0.5, "usage": 0.0, "feedback": 0.5, "decay": 1.0}
    comp.update(override)
    v = {k: float(defaults[k] if comp[k] is None else comp[k]) for k in comp}
    return round(effective_weight(v["manual"], v["confidence"], v["usage"], v["feedback"], v["decay"], cfg), 12)
