"""Verifiers: the last stage of the merge decision, behind one small interface.

A verifier judges one candidate pair that passed the difference check (its seed score, its
features, the two texts) and returns a `Verdict`: `p_duplicate`, the probability that the two
memories state the same thing, placed against `[merge] propose_at` / `auto_apply_at`, or its own
label (duplicate | near_paraphrase_with_difference | conflict | different), or `pending` (no
verdict now: the pair is left for a later run). `[merge] verifier` names one:
- `rules` (the default, offline, here): a logistic regression over the pair's cosine, title
  similarity, word-alignment figures and guard signals. Its coefficients are below as plain
  numbers, fitted by `bench/merge_train.py` on the dev half of MRPC / STS-B / SICK train and
  measured on the held-out half (bench/results/merge-quality.json); rerun that script to refit.
- `llm` (merge/verify_llm.py): the configured OpenAI-compatible provider labels the pair.
- `onnx` (merge/verify_onnx.py): a user-supplied cross-encoder or NLI model.
merge/verifiers.py builds the one a pass uses; a new verifier is a class with `name` and `judge`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol

from graphcons.core.errors import ConfigError
from graphcons.maintenance.merge.guard import Differences

# A pair with a difference in meaning never reaches the verifier, so the guard's conflict
# signals are not inputs here; its softer signals (details one text adds) are.
FEATURES = ("cosine", "title_sim", "jaccard", "only_share_max", "only_share_min", "both_sides_differ",
            "length_ratio", "log_unmatched", "bigram_overlap", "order_ratio", "detail_added")

# Fitted by bench/merge_train.py (see its output in bench/results/merge-quality.json). Do not edit by hand.
RULES_INTERCEPT = 0.332082
RULES_COEFFICIENTS = {
    "cosine": 0.833994,
    "title_sim": -0.343489,
    "jaccard": 0.836496,
    "only_share_max": -0.031879,
    "only_share_min": 0.319440,
    "both_sides_differ": 0.070840,
    "length_ratio": -0.022692,
    "log_unmatched": 0.380758,
    "bigram_overlap": 0.175959,
    "order_ratio": 0.213404,
    "detail_added": 0.268809,
}
RULES_MEAN = {
    "cosine": 0.815824,
    "title_sim": 0.829669,
    "jaccard": 0.580701,
    "only_share_max": 0.335086,
    "only_share_min": 0.223701,
    "both_sides_differ": 0.767952,
    "length_ratio": 0.858280,
    "log_unmatched": 1.444017,
    "bigram_overlap": 0.317783,
    "order_ratio": 0.656213,
    "detail_added": 0.357143,
}
RULES_SCALE = {
    "cosine": 0.117208,
    "title_sim": 0.101684,
    "jaccard": 0.211202,
    "only_share_max": 0.182259,
    "only_share_min": 0.180118,
    "both_sides_differ": 0.422140,
    "length_ratio": 0.133270,
    "log_unmatched": 0.674813,
    "bigram_overlap": 0.246448,
    "order_ratio": 0.182723,
    "detail_added": 0.479157,
}
# end of fitted numbers


def features(cosine: float, title_sim: float, d: Differences) -> dict[str, float]:
    """The verifier's inputs for one pair (also recorded on the proposal)."""
    union = d.shared + len(d.only_a) + len(d.only_b)
    share_a = len(d.only_a) / d.content_a if d.content_a else 0.0
    share_b = len(d.only_b) / d.content_b if d.content_b else 0.0
    big, small = max(d.content_a, d.content_b), min(d.content_a, d.content_b)
    out = {"cosine": cosine, "title_sim": title_sim, "jaccard": d.shared / union if union else 1.0,
           "only_share_max": max(share_a, share_b), "only_share_min": min(share_a, share_b),
           "both_sides_differ": float(bool(d.only_a) and bool(d.only_b)),
           "length_ratio": small / big if big else 1.0, "log_unmatched": math.log1p(d.unmatched),
           "bigram_overlap": d.bigram_overlap, "order_ratio": d.order_ratio, "detail_added": d.detail_added}
    return out


@dataclass
class Verdict:
    p_duplicate: float | None  # placed against the operating points (None: the verifier gives no figure)
    label: str | None = None  # the verifier's own outcome; None: p_duplicate and the operating points decide
    reason: str = ""
    pending: str = ""  # why there is no verdict now (budget spent, provider failure): decided in a later run


class Verifier(Protocol):
    name: str

    def judge(self, pair: Any, text_a: str, text_b: str) -> Verdict:
        """`pair` is the merge.score.Pair (its features, ids, versions); the texts are winner, loser."""
        ...


class RulesVerifier:
    name = "rules"

    def p_duplicate(self, feats: dict[str, float], text_a: str = "", text_b: str = "") -> float:
        z = RULES_INTERCEPT + sum(RULES_COEFFICIENTS[f] * (feats[f] - RULES_MEAN[f]) / RULES_SCALE[f]
                                  for f in FEATURES)
        return 1.0 / (1.0 + math.exp(-z))

    def judge(self, pair: Any, text_a: str, text_b: str) -> Verdict:
        return Verdict(self.p_duplicate(pair.features))




def get(name: str) -> Verifier:
    """The rules verifier by name (the others need their settings: `for_run`)."""
    if name != "rules":
        raise ConfigError(f"merge.verifier: {name!r} needs its settings; build it with merge.verifiers.for_run(config)")
    return RulesVerifier()
