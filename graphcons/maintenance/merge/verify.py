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
            "length_ratio", "log_unmatched", "bigram_overlap", "order_ratio", "detail_added", "log_content")
# log_content (the longer text's distinct content words, log) controls for length: without it the
# count features (log_unmatched, detail_added) stood for "a long news sentence" (MRPC, mostly
# duplicates) against "a short caption" (SICK / STS-B, mostly not), and penalised short paraphrases.

# Fitted by bench/merge_train.py (see its output in bench/results/merge-quality.json). Do not edit by hand.
RULES_INTERCEPT = 0.351742
RULES_COEFFICIENTS = {
    "cosine": 0.771536,
    "title_sim": -0.338806,
    "jaccard": 0.157974,
    "only_share_max": -0.125262,
    "only_share_min": 0.278087,
    "both_sides_differ": -0.033488,
    "length_ratio": 0.081002,
    "log_unmatched": -0.324137,
    "bigram_overlap": 0.055966,
    "order_ratio": 0.316632,
    "detail_added": 0.222887,
    "log_content": 0.640572,
}
RULES_MEAN = {
    "cosine": 0.815805,
    "title_sim": 0.829651,
    "jaccard": 0.588331,
    "only_share_max": 0.329060,
    "only_share_min": 0.219702,
    "both_sides_differ": 0.754631,
    "length_ratio": 0.860752,
    "log_unmatched": 1.428970,
    "bigram_overlap": 0.321502,
    "order_ratio": 0.658487,
    "detail_added": 0.357278,
    "log_content": 2.145690,
}
RULES_SCALE = {
    "cosine": 0.117227,
    "title_sim": 0.101698,
    "jaccard": 0.216953,
    "only_share_max": 0.186310,
    "only_share_min": 0.180979,
    "both_sides_differ": 0.430306,
    "length_ratio": 0.133287,
    "log_unmatched": 0.689518,
    "bigram_overlap": 0.251448,
    "order_ratio": 0.184091,
    "detail_added": 0.479198,
    "log_content": 0.479639,
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
           "bigram_overlap": d.bigram_overlap, "order_ratio": d.order_ratio, "detail_added": d.detail_added,
           "log_content": math.log1p(big)}
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
