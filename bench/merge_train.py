"""Fit the `rules` verifier (graphcons/maintenance/merge/verify.py) and write its numbers.

A logistic regression (scikit-learn, lbfgs, deterministic) over verify.FEATURES, fitted on
the DEV half (bench/merge_data.py's fixed hash split) of MRPC, STS-B and SICK train, on the
pairs the verifier actually sees: seed score >= `[merge] threshold` and no difference in
meaning (those are conflicts before the verifier runs). Features are standardised; the
mean, scale, coefficients and intercept are written into verify.py as plain numbers
(no pickle). The held-out half is never used here (bench/merge_quality.py reports it).

    PYTHONPATH=. python bench/merge_train.py            # fits, rewrites verify.py's numbers
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.merge_data import SETS, load_all  # noqa: E402
from graphcons.core.config import MergeConfig  # noqa: E402
from graphcons.maintenance.merge import verify  # noqa: E402
from graphcons.maintenance.merge.score import score_pair  # noqa: E402

VERIFY = Path(verify.__file__)


def memory(pid: str, text: str) -> dict:
    """An untitled, fresh memory as the merge job reads it (equal weights: the text decides the winner)."""
    return {"id": pid, "content": text, "title": "", "title_derived": True, "effective_weight": 0.5,
            "evidence_count": 1, "version": 1, "namespace": "default", "subject": pid}


def scored_pairs(cfg: MergeConfig) -> list[tuple]:
    """(DevPair, Pair) for every dev pair, the Pair decided as the merge job would with `cfg`."""
    out = []
    for name, pairs in load_all(SETS).items():
        for i, dp in enumerate(pairs):
            p = score_pair(memory(f"{name}-{i:05d}-a", dp.a), memory(f"{name}-{i:05d}-b", dp.b), dp.cosine, cfg)
            out.append((dp, p))
    return out


def main() -> None:
    cfg = MergeConfig()
    rows = [(dp, p) for dp, p in scored_pairs(replace_cfg(cfg)) if dp.split == "dev" and p.score >= cfg.threshold
            and not p.contradictions]
    x = np.array([[p.features[f] for f in verify.FEATURES] for _, p in rows])
    y = np.array([int(dp.label) for dp, _ in rows])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=1.0, max_iter=1000).fit((x - mean) / scale, y)
    coef = dict(zip(verify.FEATURES, model.coef_[0]))
    print(f"fitted on {len(rows)} dev candidate pairs ({y.sum()} duplicates)")
    for f in verify.FEATURES:
        print(f"  {f:18s} {coef[f]:+.4f}")
    block = ("# Fitted by bench/merge_train.py (see its output in bench/results/merge-quality.json). Do not edit by hand.\n"
             f"RULES_INTERCEPT = {model.intercept_[0]:.6f}\n"
             f"RULES_COEFFICIENTS = {_fmt(coef)}\n"
             f"RULES_MEAN = {_fmt(dict(zip(verify.FEATURES, mean)))}\n"
             f"RULES_SCALE = {_fmt(dict(zip(verify.FEATURES, scale)))}\n"
             "# end of fitted numbers\n")
    text = VERIFY.read_text()
    text = re.sub(r"# Fitted by bench/merge_train\.py.*?# end of fitted numbers\n", lambda _: block, text,
                  count=1, flags=re.S)
    VERIFY.write_text(text)
    print(f"wrote {VERIFY}")


def replace_cfg(cfg: MergeConfig) -> MergeConfig:
    """The fitting run needs every candidate's features, so no pair may stop at the propose point."""
    return cfg.model_copy(update={"propose_at": 0.0, "auto_apply_at": 0.0})


def _fmt(d: dict) -> str:
    return "{\n" + "".join(f'    "{k}": {float(v):.6f},\n' for k, v in d.items()) + "}"


if __name__ == "__main__":
    main()
