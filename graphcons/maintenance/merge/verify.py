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
RULES_INTERCEPT = 0.552299
RULES_COEFFICIENTS = {
    "cosine": 0.589088,
    "title_sim": -0.301023,
    "jaccard": -0.379206,
    "only_share_max": 0.087699,
    "only_share_min": -0.115283,
    "both_sides_differ": -0.027373,
    "length_ratio": -0.075179,
    "log_unmatched": 0.101339,
    "bigram_overlap": -0.013365,
    "order_ratio": 0.392334,
    "detail_added": 0.212450,
    "log_content": 1.303626,
    "added_run": -0.581298,
    "run_min": -0.337002,
    "unmatched_max": -0.778750,
    "unmatched_min": 0.135188,
    "run_share": 0.152351,
    "token_ratio": 0.294122,
    "numbers_only": -0.186978,
    "numbers_shared": 0.049572,
    "names_only": 0.012340,
    "names_shared": -0.193367,
    "substitutions": 0.217856,
    "aligned": -0.586465,
    "aligned_short": 0.775243,
}
RULES_MEAN = {
    "cosine": 0.817626,
    "title_sim": 0.828960,
    "jaccard": 0.587157,
    "only_share_max": 0.330624,
    "only_share_min": 0.218318,
    "both_sides_differ": 0.753689,
    "length_ratio": 0.857633,
    "log_unmatched": 1.441553,
    "bigram_overlap": 0.319563,
    "order_ratio": 0.656399,
    "detail_added": 0.370034,
    "log_content": 2.161935,
    "added_run": 1.012367,
    "run_min": 0.635606,
    "unmatched_max": 1.175058,
    "unmatched_min": 0.740379,
    "run_share": 0.256216,
    "token_ratio": 0.857730,
    "numbers_only": 0.121041,
    "numbers_shared": 0.882110,
    "names_only": 0.236205,
    "names_shared": 0.883088,
    "substitutions": 0.623825,
    "aligned": 0.083239,
    "aligned_short": 0.019706,
}
RULES_SCALE = {
    "cosine": 0.116622,
    "title_sim": 0.101822,
    "jaccard": 0.214503,
    "only_share_max": 0.184330,
    "only_share_min": 0.181292,
    "both_sides_differ": 0.430862,
    "length_ratio": 0.132989,
    "log_unmatched": 0.685029,
    "bigram_overlap": 0.246065,
    "order_ratio": 0.183204,
    "detail_added": 0.482813,
    "log_content": 0.478956,
    "added_run": 0.497312,
    "run_min": 0.453387,
    "unmatched_max": 0.581147,
    "unmatched_min": 0.550988,
    "run_share": 0.159915,
    "token_ratio": 0.115022,
    "numbers_only": 0.311354,
    "numbers_shared": 0.302997,
    "names_only": 0.449215,
    "names_shared": 0.263497,
    "substitutions": 0.536301,
    "aligned": 0.276243,
    "aligned_short": 0.071940,
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
