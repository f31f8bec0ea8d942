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
            "length_ratio", "log_unmatched", "bigram_overlap", "order_ratio", "detail_added", "log_content",
            "added_run", "run_min", "unmatched_max", "unmatched_min", "run_share", "token_ratio",
            "numbers_only", "numbers_shared", "names_only", "names_shared", "substitutions", "aligned", "aligned_short")
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

# Fitted by bench/merge_train.py (see its output in bench/results/merge-quality.json). Do not edit by hand.
RULES_INTERCEPT = 0.720729
RULES_COEFFICIENTS = {
    "cosine": 0.555866,
    "title_sim": -0.294096,
    "jaccard": -0.232657,
    "only_share_max": 0.678499,
    "only_share_min": -0.288653,
    "both_sides_differ": -0.024444,
    "length_ratio": 0.044831,
    "log_unmatched": -0.086484,
    "bigram_overlap": 0.028056,
    "order_ratio": 0.437704,
    "detail_added": 0.176302,
    "log_content": 1.480721,
    "added_run": -0.677319,
    "run_min": -0.372837,
    "unmatched_max": -0.889762,
    "unmatched_min": 0.292885,
    "run_share": 0.197005,
    "token_ratio": 0.343677,
    "numbers_only": -0.185724,
    "numbers_shared": 0.023339,
    "names_only": 0.046778,
    "names_shared": -0.188024,
    "substitutions": 0.200475,
    "aligned": -0.402345,
    "aligned_short": 0.430370,
}
RULES_MEAN = {
    "cosine": 0.826276,
    "title_sim": 0.836458,
    "jaccard": 0.603397,
    "only_share_max": 0.313966,
    "only_share_min": 0.199886,
    "both_sides_differ": 0.752405,
    "length_ratio": 0.859854,
    "log_unmatched": 1.438084,
    "bigram_overlap": 0.346871,
    "order_ratio": 0.690392,
    "detail_added": 0.380594,
    "log_content": 2.193638,
    "added_run": 1.011277,
    "run_min": 0.625812,
    "unmatched_max": 1.174162,
    "unmatched_min": 0.728036,
    "run_share": 0.243847,
    "token_ratio": 0.862681,
    "numbers_only": 0.117630,
    "numbers_shared": 0.886665,
    "names_only": 0.248973,
    "names_shared": 0.877730,
    "substitutions": 0.613801,
    "aligned": 0.075282,
    "aligned_short": 0.016705,
}
RULES_SCALE = {
    "cosine": 0.113452,
    "title_sim": 0.100379,
    "jaccard": 0.196517,
    "only_share_max": 0.164245,
    "only_share_min": 0.158220,
    "both_sides_differ": 0.431615,
    "length_ratio": 0.129452,
    "log_unmatched": 0.668304,
    "bigram_overlap": 0.239376,
    "order_ratio": 0.152302,
    "detail_added": 0.485533,
    "log_content": 0.476317,
    "added_run": 0.487210,
    "run_min": 0.446503,
    "unmatched_max": 0.570545,
    "unmatched_min": 0.543324,
    "run_share": 0.143353,
    "token_ratio": 0.111906,
    "numbers_only": 0.307752,
    "numbers_shared": 0.296538,
    "names_only": 0.459092,
    "names_shared": 0.268276,
    "substitutions": 0.531170,
    "aligned": 0.263846,
    "aligned_short": 0.065486,
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
