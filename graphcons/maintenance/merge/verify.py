"""Verifiers: the last stage of the merge decision, behind one small interface.

A verifier judges one candidate pair that passed the difference check (its seed score, its
features, the two texts) and returns a `Verdict`: `p_duplicate`, the probability that the two
memories state the same thing, placed against `[merge] propose_at` / `auto_apply_at`, or its own
label (duplicate | near_paraphrase_with_difference | conflict | different), or `pending` (no
verdict now: the pair is left for a later run). `[merge] verifier` names one:
- `rules` (the default, offline, here): a logistic regression over the pair's cosine, title
  similarity, word-alignment figures and guard signals. Its coefficients are below as plain
  numbers, fitted by `bench/merge/train.py` on the dev half of MRPC / STS-B / SICK train and
  measured on the held-out half (bench/merge/results/merge-quality.json); rerun that script to refit.
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
# Issue 29: the 15 of the 25 earlier features that carried over between data sets (bench/merge/cross.py:
# fitted on two of MRPC / STS-B / SICK, measured on the third, the smaller set was as good or better in
# every fold; the ten dropped ones - both_sides_differ, length_ratio, log_unmatched, detail_added, run_min,
# run_share, token_ratio, numbers_shared, names_shared, aligned_short - are still recorded on each pair).
FEATURES = ("cosine", "title_sim", "jaccard", "only_share_max", "only_share_min", "order_ratio", "log_content",
            "added_run", "unmatched_max", "unmatched_min", "numbers_only", "names_only", "substitutions", "aligned",
            "bigram_overlap")
# log_content (the longer text's distinct content words, log) controls for length: without it the
# count features (log_unmatched, detail_added) stood for "a long news sentence" (MRPC, mostly
# duplicates) against "a short caption" (SICK / STS-B, mostly not), and penalised short paraphrases.
# added_run / run_min (the longest run of one-sided content words in each text, log) tell an added
# clause (MRPC's "not a paraphrase": one text says more) from words said differently on both sides
# (short scattered substitutions); unmatched_max / _min are the one-sided counts per text; numbers_*
# and names_* how many of the figures and names the two texts share (news paraphrases keep them);
# substitutions (log) counts words replaced in the same slot: a rewording more often than an addition
# (the fit weighs it up; a replaced member of a contrast set, "soccer" / "tennis", is a conflict first);
# aligned: every content word of each text has its counterpart in the other, in any order (a short
# restatement such as "X is the user's preferred language" / "the user prefers X" says nothing more).

# Fitted by bench/merge/train.py (see its output in bench/merge/results/merge-quality.json). Do not edit by hand.
RULES_INTERCEPT = 0.714539
RULES_COEFFICIENTS = {
    "cosine": 0.540948,
    "title_sim": -0.264655,
    "jaccard": 0.158192,
    "only_share_max": 0.580226,
    "only_share_min": 0.032392,
    "order_ratio": 0.412580,
    "log_content": 1.205034,
    "added_run": -0.526690,
    "unmatched_max": -0.838422,
    "unmatched_min": 0.014220,
    "numbers_only": -0.172526,
    "names_only": 0.291673,
    "substitutions": 0.222769,
    "aligned": -0.036966,
    "bigram_overlap": 0.067432,
}
RULES_MEAN = {
    "cosine": 0.826519,
    "title_sim": 0.836124,
    "jaccard": 0.603225,
    "only_share_max": 0.314097,
    "only_share_min": 0.200054,
    "order_ratio": 0.690298,
    "log_content": 2.193964,
    "added_run": 1.012300,
    "unmatched_max": 1.174944,
    "unmatched_min": 0.728852,
    "numbers_only": 0.127595,
    "names_only": 0.248179,
    "substitutions": 0.614840,
    "aligned": 0.075282,
    "bigram_overlap": 0.347088,
}
RULES_SCALE = {
    "cosine": 0.113242,
    "title_sim": 0.100865,
    "jaccard": 0.196572,
    "only_share_max": 0.164257,
    "only_share_min": 0.158338,
    "order_ratio": 0.152513,
    "log_content": 0.476411,
    "added_run": 0.487475,
    "unmatched_max": 0.571222,
    "unmatched_min": 0.544074,
    "numbers_only": 0.332447,
    "names_only": 0.459329,
    "substitutions": 0.530822,
    "aligned": 0.263846,
    "bigram_overlap": 0.239323,
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
           "log_content": math.log1p(big), "added_run": math.log1p(max(d.runs)), "run_min": math.log1p(min(d.runs)),
           "unmatched_max": math.log1p(max(d.lone)), "unmatched_min": math.log1p(min(d.lone)),
           "run_share": d.run_share, "token_ratio": d.token_ratio, "numbers_only": math.log1p(d.numbers_only),
           "numbers_shared": d.numbers_shared, "names_only": math.log1p(d.names_only),
           "names_shared": d.names_shared, "substitutions": math.log1p(d.substitutions),
           "aligned": float(not d.only_a and not d.only_b),
           "aligned_short": float(not d.only_a and not d.only_b) / max(1, small)}
    return out


@dataclass
class Verdict:
    p_duplicate: float | None  # placed against the operating points (None: the verifier gives no figure)
    label: str | None = None  # the verifier's own outcome; None: p_duplicate and the operating points decide
    reason: str = ""
    pending: str = ""  # why there is no verdict now (budget spent, provider failure): decided in a later run
    refused: str = ""  # why the verifier's own label is not acted on (llm: its answers or the rules contradict it)


class Verifier(Protocol):
    name: str

    def judge(self, pair: Any, text_a: str, text_b: str) -> Verdict:
        """`pair` is the merge.score.Pair (its features, ids, versions); the texts are winner, loser."""
        ...


class RulesVerifier:
    name = "rules"

    def p_duplicate(self, feats: dict[str, float], text_a: str = "", text_b: str = "") -> float:
        z = RULES_INTERCEPT + sum(c * (feats[f] - RULES_MEAN[f]) / RULES_SCALE[f]  # the fitted features
                                  for f, c in RULES_COEFFICIENTS.items())
        return 1.0 / (1.0 + math.exp(-z))

    def judge(self, pair: Any, text_a: str, text_b: str) -> Verdict:
        return Verdict(self.p_duplicate(pair.features))




def get(name: str) -> Verifier:
    """The rules verifier by name (the others need their settings: `for_run`)."""
    if name != "rules":
        raise ConfigError(f"merge.verifier: {name!r} needs its settings; build it with merge.verifiers.for_run(config)")
    return RulesVerifier()
