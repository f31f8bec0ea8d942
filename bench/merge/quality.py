"""Merge decision quality on the dev data, both operating points, the sweep, the confusion.

Every labelled pair of MRPC, STS-B and SICK train (bench/merge/data.py: two untitled memories,
offline MiniLM cosine) goes through the merge job's own decision (merge.score.score_pair:
seed score, difference check, verifier) with the configured `[merge]` settings. The vector
index's retrieval is not re-run here: each pair is the candidate (bench/merge/speed.py measured
that the index returns 3,528 of MRPC's 3,576 pairs within a subject; the scale part of that
script times the pass). Figures are given for the `dev` half (where the verifier is fitted
and the points are picked) and the `held_out` half (reported only), by a fixed hash split.

The operating points are picked on the dev half by the rules below (PROPOSE_RULE, AUTO_RULE)
and saved with both halves' figures to bench/merge/results/merge-quality.json:

    python -m bench.merge.train && python -m bench.merge.quality
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.merge.train import memory  # noqa: E402
from bench.merge.data import SETS, load_all  # noqa: E402
from graphcons.core.config import load_config  # noqa: E402
from graphcons.maintenance.merge import verify  # noqa: E402
from graphcons.maintenance.merge.score import CONFLICT, DUPLICATE, NOTHING, RELATED, over, score_pair  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "merge-quality.json"
SWEEP = [round(0.30 + 0.01 * i, 2) for i in range(70)]  # 0.30 .. 0.99
DIFFERENT_MEANING = 3.0
PROPOSE_RULE = ("lowest p_duplicate whose dev-half merges have MRPC precision >= 0.88 (issue 11's target), "
                "merge < 1 % of the STS-B pairs graded < 3 and <= 0.5 % of the SICK CONTRADICTION pairs")
AUTO_RULE = ("lowest p_duplicate whose dev-half merges have MRPC precision >= 0.97 (issue 11's target) over at "
             "least 50 merges, no STS-B pair graded < 3 and no SICK CONTRADICTION pair")


ORDER_RULE = ("largest of 0.1 .. 0.5 (step 0.1) that keeps >= 99 % of the dev half's MRPC true merges at propose_at "
              "(a pair whose content words mostly do not line up is no restatement)")
ORDER_FLOORS = (0.1, 0.2, 0.3, 0.4, 0.5)


def outcome_at(p, t: float, floor: float, auto: bool = False) -> str:
    """The job's outcome for a pair decided with propose_at = 0 and no word-order floor, at operating
    point t (`auto`: t is the auto-apply point, merge.score.over) and word-order floor `floor`."""
    if p.outcome != DUPLICATE:
        return p.outcome
    if over(p, t, auto=auto) and p.features["order_ratio"] >= floor:
        return DUPLICATE
    return RELATED if (p.only_winner or p.only_loser) else NOTHING


def figures(rows: list[tuple], t: float, floor: float, auto: bool = False) -> dict:
    """Merge figures at point t and word-order floor `floor` (`auto`: as the auto-apply point) over
    (DevPair, Pair) rows of one data set and split."""
    merged = [(dp, p) for dp, p in rows if outcome_at(p, t, floor, auto) == DUPLICATE]
    tp = sum(dp.label for dp, _ in merged)
    fp = len(merged) - tp
    pos = sum(dp.label for dp, _ in rows)
    out = {"point": t, "merged": len(merged), "precision": round(tp / len(merged), 4) if merged else 1.0,
           "recall": round(tp / pos, 4) if pos else 0.0, "tp": tp, "fp": fp}
    out["false_merge_rate"] = round(1 - out["precision"], 4)
    if rows and rows[0][0].data == "stsb":
        low = sum(1 for dp, _ in merged if dp.grade < DIFFERENT_MEANING)
        out["graded_lt3_share_of_merges"] = round(low / len(merged), 4) if merged else 0.0
        all_low = sum(1 for dp, _ in rows if dp.grade < DIFFERENT_MEANING)
        out["graded_lt3_pairs_merged_rate"] = round(low / all_low, 4) if all_low else 0.0
    if rows and rows[0][0].data == "sick":
        contra = [(dp, p) for dp, p in rows if dp.nli == "CONTRADICTION"]
        out["contradictions_merged"] = sum(1 for _, p in contra if outcome_at(p, t, floor, auto) == DUPLICATE)
        out["contradictions_merged_rate"] = round(out["contradictions_merged"] / len(contra), 4)
    return out


def confusion(rows: list[tuple], t: float, floor: float, auto: bool = False) -> dict:
    """Outcome counts by ground truth (label; SICK by its entailment judgment)."""
    out: dict[str, Counter] = {}
    for dp, p in rows:
        truth = dp.nli.lower() if dp.nli else ("duplicate" if dp.label else "not_duplicate")
        if dp.nli and dp.label:
            truth = "entailment_duplicate"
        out.setdefault(truth, Counter())[outcome_at(p, t, floor, auto)] += 1
    return {k: dict(sorted(v.items())) for k, v in sorted(out.items())}


def sick_conflicts(rows: list[tuple], threshold: float) -> dict:
    contra = [p for dp, p in rows if dp.nli == "CONTRADICTION"]
    over = [p for p in contra if p.score >= threshold]
    got = [p for p in over if p.outcome == CONFLICT]
    reasons = Counter(r for p in got for r in p.contradictions)
    return {"contradiction_pairs": len(contra), "over_threshold": len(over), "conflict": len(got),
            "conflict_share_over_threshold": round(len(got) / len(over), 4) if over else 1.0,
            "reasons": dict(reasons.most_common())}


def false_conflicts(rows: list[tuple]) -> dict:
    dups = [p for dp, p in rows if dp.label]
    got = [p for p in dups if p.outcome == CONFLICT]
    return {"duplicates_over_threshold": sum(1 for p in dups if p.outcome != NOTHING or p.p_duplicate is not None),
            "conflict": len(got), "reasons": dict(Counter(r for p in got for r in p.contradictions).most_common())}


def order_sweep(rows: list[tuple], t: float) -> list[dict]:
    """Per word-order floor: the MRPC true and false merges it keeps at point t (one split)."""
    out = []
    for floor in (0.0,) + ORDER_FLOORS:
        merged = [dp for dp, p in rows if outcome_at(p, t, floor) == DUPLICATE]
        out.append({"min_order_ratio": floor, "tp": sum(dp.label for dp in merged),
                    "fp": sum(not dp.label for dp in merged)})
    return out


def pick_floor(sweep: list[dict]) -> float:
    kept = [r["min_order_ratio"] for r in sweep[1:] if r["tp"] >= 0.99 * sweep[0]["tp"]]
    return max(kept, default=0.0)


def pick(by: dict, rule: str) -> float | None:
    """by[data] = dev-half sweep rows (for "auto": the auto-apply sweep); the lowest point meeting
    PROPOSE_RULE or AUTO_RULE."""
    for i, t in enumerate(SWEEP):
        m, s, k = by["mrpc"][i], by["stsb"][i], by["sick"][i]
        if rule == "auto" and m["precision"] >= 0.97 and m["merged"] >= 50 \
                and s["graded_lt3_share_of_merges"] == 0 and k["contradictions_merged"] == 0:
            return t
        if rule == "propose" and m["precision"] >= 0.88 and s["graded_lt3_pairs_merged_rate"] < 0.01 \
                and k["contradictions_merged_rate"] <= 0.005:
            return t
    return None


def main() -> None:
    cfg = load_config().merge
    decided = cfg.model_copy(update={"propose_at": 0.0, "auto_apply_at": 0.0, "min_order_ratio": 0.0})
    floor = cfg.min_order_ratio
    data = load_all(SETS)
    rows = {name: [(dp, score_pair(memory(f"{name}-{i:05d}-a", dp.a), memory(f"{name}-{i:05d}-b", dp.b),
                                   dp.cosine, decided)) for i, dp in enumerate(pairs)] for name, pairs in data.items()}
    split = {s: {name: [r for r in rs if r[0].split == s] for name, rs in rows.items()} for s in ("dev", "held_out")}
    sweep = {s: {name: [figures(rs, t, floor) for t in SWEEP] for name, rs in by.items()} for s, by in split.items()}
    sweep_auto = {s: {name: [figures(rs, t, floor, auto=True) for t in SWEEP] for name, rs in by.items()}
                  for s, by in split.items()}
    points = {"propose": pick(sweep["dev"], "propose"), "auto_apply": pick(sweep_auto["dev"], "auto")}
    floors = {s: order_sweep(by["mrpc"], cfg.propose_at) for s, by in split.items()}
    points["min_order_ratio"] = pick_floor(floors["dev"])
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    out = {"command": "python -m bench.merge.train && python -m bench.merge.quality",
           "machine": {"platform": platform.platform(), "python": platform.python_version(), "uptime": load},
           "config": cfg.model_dump(), "verifier_features": list(verify.FEATURES),
           "verifier_coefficients": verify.RULES_COEFFICIENTS, "verifier_intercept": verify.RULES_INTERCEPT,
           "rules": {"propose": PROPOSE_RULE, "auto_apply": AUTO_RULE, "min_order_ratio": ORDER_RULE},
           "picked_on_dev": points, "order_floor_sweep_mrpc_at_propose": floors,
           "configured": {"propose_at": cfg.propose_at, "auto_apply_at": cfg.auto_apply_at,
                          "min_order_ratio": cfg.min_order_ratio}}
    for s, by in split.items():
        res = out.setdefault(s, {})
        for name, rs in by.items():
            res[name] = {"pairs": len(rs), "duplicates": sum(dp.label for dp, _ in rs),
                         "over_threshold": sum(1 for _, p in rs if p.score >= cfg.threshold),
                         "at_propose": figures(rs, cfg.propose_at, floor),
                         "at_auto_apply": figures(rs, cfg.auto_apply_at, floor, auto=True),
                         # no p_duplicate reaches an infinite point: what merges there is a restatement
                         "restatements_proposed": sum(outcome_at(p, float("inf"), floor) == DUPLICATE for _, p in rs),
                         "confusion_at_propose": confusion(rs, cfg.propose_at, floor),
                         "confusion_at_auto_apply": confusion(rs, cfg.auto_apply_at, floor, auto=True),
                         "false_conflicts_on_duplicates": false_conflicts(rs), "sweep": sweep[s][name],
                         "sweep_auto_apply": sweep_auto[s][name]}
            if name == "sick":
                res[name]["contradictions"] = sick_conflicts(rs, cfg.threshold)
    # the seed's rule alone (score >= t, old guard semantics aside) for comparison: cosine-only baseline
    for s, by in split.items():
        m = by["mrpc"]
        base = []
        for t in (0.80, 0.85, 0.90, 0.92, 0.95):
            merged = [dp for dp, p in m if p.score >= t]
            tp = sum(dp.label for dp in merged)
            base.append({"seed_score_at": t, "precision": round(tp / len(merged), 4) if merged else 1.0,
                         "recall": round(tp / sum(dp.label for dp, _ in m), 4)})
        out[s]["mrpc_seed_score_only"] = base
    out["baseline"] = _baseline(points)
    out["previous"] = _previous()
    if RESULTS.is_file():  # bench/merge/cross.py's and bench/merge/events.py's sections are theirs to rewrite
        old = json.loads(RESULTS.read_text())
        out.update({k: old[k] for k in ("cross_dataset", "distinct_events") if k in old})
    RESULTS.write_text(json.dumps(out, indent=2) + "\n")
    _summarise_into_merge_json(out)
    print("picked on dev:", points, "configured:", out["configured"])
    for s in ("dev", "held_out"):
        for name in ("mrpc", "stsb", "sick"):
            r = out[s][name]
            for pt in ("at_propose", "at_auto_apply"):
                f = r[pt]
                extra = {k: f[k] for k in f if k.startswith(("graded", "contradictions"))}
                print(f"{s:8s} {name:4s} {pt:13s} p>={f['point']}: merged {f['merged']} P={f['precision']} "
                      f"R={f['recall']} {extra}")
        print(f"{s:8s} sick contradictions: {out[s]['sick']['contradictions']}")
        print(f"{s:8s} false conflicts on duplicates: " +
              str({n: out[s][n]['false_conflicts_on_duplicates']['conflict'] for n in ('mrpc', 'stsb', 'sick')}))
    print(f"saved {RESULTS}")


def _summarise_into_merge_json(res: dict) -> None:
    """The headline figures, both points and the MRPC confusion, also in bench/merge/results/merge.json
    (issue 11 reads them there; bench/merge/speed.py keeps this entry when it rewrites the file)."""
    merge_json = RESULTS.parent / "merge.json"
    if not merge_json.is_file():
        return
    headline = _headline(res)
    def head(split: str) -> dict:
        r = res[split]
        out = {pt: {"point": r["mrpc"][pt]["point"], **headline[split][pt], "confusion_mrpc": r["mrpc"]["confusion_" + pt]}
               for pt in ("at_propose", "at_auto_apply")}
        out["sick_contradictions_over_floor_conflict_share"] = r["sick"]["contradictions"]["conflict_share_over_threshold"]
        return out
    doc = json.loads(merge_json.read_text())
    doc["decision_quality"] = {
        "what": "issue 11's staged merge decision (difference check + rules verifier) at both operating points; the "
                "whole sweep, both halves and the confusion of the four outcomes per data set are in "
                "bench/merge/results/merge-quality.json",
        "command": res["command"], "configured": res["configured"], "picked_on_dev": res["picked_on_dev"],
        "held_out": head("held_out"), "dev": head("dev")}
    merge_json.write_text(json.dumps(doc, indent=2) + "\n")


def _headline(res: dict) -> dict:
    """The figures the issue's targets read, from one saved result."""
    out = {}
    for s in ("dev", "held_out"):
        r = res[s]
        out[s] = {pt: {"mrpc_precision": r["mrpc"][pt]["precision"], "mrpc_recall": r["mrpc"][pt]["recall"],
                       "stsb_graded_lt3_pairs_merged_rate": r["stsb"][pt].get("graded_lt3_pairs_merged_rate"),
                       "sick_contradictions_merged_rate": r["sick"][pt].get("contradictions_merged_rate")}
                  for pt in ("at_propose", "at_auto_apply")}
    return out


def _baseline(points: dict) -> dict:
    """The first fit's headline figures, kept as they are (the project keeps a result's `baseline`)."""
    if not RESULTS.is_file():
        return {}
    return json.loads(RESULTS.read_text()).get("baseline", {})


def _previous() -> dict:
    """The previous fit's headline figures (the verifier before this fit), kept next to the new ones."""
    if not RESULTS.is_file():
        return {}
    old = json.loads(RESULTS.read_text())
    if old.get("verifier_coefficients") == verify.RULES_COEFFICIENTS:  # a rerun of the same fit: keep its previous
        return old.get("previous", {})
    return {"configured": old.get("configured"), "verifier_features": old.get("verifier_features"),
            "figures": _headline(old)}


if __name__ == "__main__":
    main()
