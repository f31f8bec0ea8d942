"""Near-duplicate merge: quality on labelled paraphrase pairs, the threshold sweep, and the
time of a full merge pass over 100k memories.

Since issue 11 the decision's quality (difference check, verifier, the two operating points,
dev and held-out halves, SICK) is measured by bench/merge/quality.py without a database; this
script's quality part still measures the index's candidate retrieval and the seed score's
sweep, and its scale part times the pass.

Quality. Each pair of MRPC (label 1 = duplicate) and STS-B (score >= 4 = duplicate) is
stored as two untitled memories of one subject (one subject per pair, so the derived-title
rule applies), validated by graphcons' input model and built by admission's node_props
with offline MiniLM embeddings (computed in batches), then written in batches of 1,000
(bench/cypher/merge_load.cypher; on 2 shared cores one-by-one admission took ~20/s, and
the merge pass does not read the SIMILAR edges admission would add). An exact duplicate
is folded into the first memory as admission does. One merge scan then runs exactly as `graphcons merge` does
(vector-index candidates within subject + namespace, 0.4*JW(title) + 0.6*cosine,
contradiction guard). A pair counts as merged at threshold t when the scan found it, its
score is >= t and the guard did not flag it (an exact duplicate counts as merged: admission
already folds it into one memory). Reported: precision, recall, F1 and the false-merge
rate (1 - precision) at the configured threshold, the same without the guard, and the
sweep over thresholds; the default is picked as the lowest threshold whose false-merge
rate is < 2 % (seed 003) on STS-B and on MRPC, if one exists.

Scale. 100k memories (5,000 subjects x 20, 5 % planted near-duplicates) are written with
PRECOMPUTED synthetic embeddings (subject centroid + noise, duplicates = a member + small
noise) via one batched Cypher statement (bench/cypher/merge_load.cypher) instead of the
embedder, to keep the run feasible on 2 shared cores. Timed: a full pass writing
proposals (and with --second-pass a second one, which must find nothing new), with recall of
the planted pairs, proposals that were not planted, peak RSS of Neo4j and of Python and the
`uptime` load, next to `scale_baseline` (issue 15's starting point: 1,585 s, one vector-index
query per memory). --reference also runs that old candidate definition on the same store (a dry
pass before) and compares what each proposes (saved as `scale_vs_reference`). In both parts the
vector index is built once after the load (a freshly built index, not one fragmented by many
small commits: see build_index).

    export NEO4J_URI=... NEO4J_PASSWORD=...      # a server you can WIPE (e.g. your private one)
    python -m bench.merge.speed --wipe [--n-scale 100000] [--skip-scale] [--skip-quality]
    python -m bench.merge.speed --wipe --skip-quality --n-scale 1000000 [--keep-store]   # 1M

Prints a summary and saves bench/merge/results/merge.json.
"""

from __future__ import annotations

import argparse
import csv
import json
import platform
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from graphcons.maintenance.merge import job as merge  # noqa: E402
from bench import plots, query  # noqa: E402
from graphcons.core.memory import embedded_text  # noqa: E402
from graphcons.store.admission import node_props  # noqa: E402
from graphcons.api import Graphcons  # noqa: E402
from graphcons.core.config import load_config  # noqa: E402
from graphcons.core.embedders.minilm import MiniLMEmbedder  # noqa: E402
from graphcons.core.memory import content_hash, parse_input  # noqa: E402

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
RESULTS = Path(__file__).resolve().parent / "results" / "merge.json"
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)
CREATED = datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc)
SWEEP = [round(0.70 + 0.01 * i, 2) for i in range(30)]  # 0.70 .. 0.99
FALSE_MERGE_TARGET = 0.02
DIFFERENT_MEANING = 3.0  # STS-B grade under which two sentences do not state the same thing


def load_mrpc() -> list[tuple[str, str, bool]]:
    with open(DATA / "mrpc-train.tsv", newline="", encoding="utf-8-sig") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    return [(r[3], r[4], r[0] == "1", None) for r in rows[1:] if len(r) >= 5]


def load_stsb() -> list[tuple[str, str, bool, float]]:
    out = []
    with open(DATA / "stsb-train.tsv", newline="", encoding="utf-8") as f:
        for r in csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            if len(r) >= 7:
                out.append((r[5], r[6], float(r[4]) >= 4.0, float(r[4])))
    return out


def wipe(g: Graphcons) -> None:
    # Benchmark setup only (graphcons itself never deletes): empty the throwaway database.
    with g.db.driver.session(database=g.config.neo4j.database) as s:
        s.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS").consume()
        # The vector index is rebuilt after the bulk load (see build_index).
        s.run("DROP INDEX memory_embedding IF EXISTS").consume()


def clear_merge_output(g: Graphcons) -> None:
    """Benchmark setup only: forget an earlier pass over a kept store (its proposals, links and
    audit records) so the next pass decides every pair again."""
    with g.db.driver.session(database=g.config.neo4j.database) as s:
        for q in ("MATCH (p:Proposal) CALL (p) { DETACH DELETE p } IN TRANSACTIONS OF 5000 ROWS",
                  "MATCH ()-[r:RELATED {source: 'merge'}]->() CALL (r) { DELETE r } IN TRANSACTIONS OF 5000 ROWS",
                  "MATCH ()-[r:CONFLICTS_WITH]->() CALL (r) { DELETE r } IN TRANSACTIONS OF 5000 ROWS",
                  "MATCH (a:Audit) CALL (a) { DELETE a } IN TRANSACTIONS OF 5000 ROWS"):
            s.run(q).consume()


def build_index(g: Graphcons) -> float:
    """Create the schema (vector index included) over the loaded memories; seconds taken.

    Measured here: after 7k one-by-one admissions the Lucene HNSW index had 92 segments
    and a vector query took ~50 ms; rebuilt it had 3 segments and took ~5 ms."""
    t0 = time.perf_counter()
    g.init()
    g.db.run_text("CALL db.awaitIndexes(3600)")
    return time.perf_counter() - t0


def prf(tp: int, fp: int, fn: int) -> dict[str, float]:
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(f1, 4),
            "false_merge_rate": round(1 - p, 4), "tp": tp, "fp": fp, "fn": fn}


def evaluate(scored: list[dict], t: float, guard: bool = True) -> dict[str, float]:
    tp = fp = fn = 0
    for s in scored:
        merged = s["exact"] or (s["score"] is not None and s["score"] >= t and not (guard and s["contradictions"]))
        if merged and s["label"]:
            tp += 1
        elif merged:
            fp += 1
        elif s["label"]:
            fn += 1
    out = prf(tp, fp, fn)
    negatives = sum(1 for s in scored if not s["label"])
    out["false_positive_rate"] = round(fp / negatives, 4) if negatives else 0.0
    if any(s["grade"] is not None for s in scored):
        # STS-B grades: < 3 means the annotators saw a different meaning (3-4: same claim,
        # some details differ). The share of merges of such pairs:
        diff = sum(1 for s in scored if s["grade"] < DIFFERENT_MEANING and (
            s["exact"] or (s["score"] is not None and s["score"] >= t and not (guard and s["contradictions"]))))
        out["different_meaning_merge_rate"] = round(diff / (tp + fp), 4) if tp + fp else 0.0
    return out


def quality(g: Graphcons, name: str, pairs: list[tuple[str, str, bool]], embedder: MiniLMEmbedder) -> dict:
    wipe(g)
    cfg = g.config
    t0 = time.perf_counter()
    texts = [t for a, b, *_ in pairs for t in (a, b)]
    mems = [parse_input({"content": t, "subject": f"{name}-{i // 2:05d}", "source": f"s{i % 2}",
                         "created_at": CREATED}, max_title=10_000, max_content=100_000)
            for i, t in enumerate(texts)]
    cache = Path("/tmp") / f"graphcons-bench-merge-{name}-{len(texts)}.npy"  # reruns skip the embedder
    if cache.is_file():
        vecs = np.load(cache).tolist()
    else:
        vecs = embedder.embed([embedded_text(m.title, m.content) for m in mems])
        np.save(cache, np.asarray(vecs, dtype=np.float64))
    t_embed = time.perf_counter() - t0
    t0 = time.perf_counter()
    ids, exact, batch = [], [], []
    for i, (m, v) in enumerate(zip(mems, vecs)):
        chash = content_hash(m.content)
        if i % 2 == 1 and chash == content_hash(mems[i - 1].content):
            ids.append(ids[-1])  # admission folds an exact duplicate into the first memory
            exact.append(True)
            continue
        if i % 2 == 1:
            exact.append(False)
        props = node_props(m, chash, v, None, g.config.weights)
        ids.append(props["id"])
        batch.append(props)
        if len(batch) >= 1000:
            g.db.run_text(query("merge_load"), rows=batch)
            batch = []
    if batch:
        g.db.run_text(query("merge_load"), rows=batch)
    t_admit = time.perf_counter() - t0
    t_index = build_index(g)

    t0 = time.perf_counter()
    found = {(p.a, p.b): p for p in merge.candidate_pairs(g.db, cfg)}
    t_scan = time.perf_counter() - t0
    scored = []
    missed_by_index = 0
    for i, (_, _, label, grade) in enumerate(pairs):
        a, b = sorted((ids[2 * i], ids[2 * i + 1]))
        p = found.get((a, b))
        if p is None and not exact[i]:
            # diagnostic only: the pair's score had the index returned it
            direct = merge.pair_score(merge.title_similarity(merge.derived_title(texts[2 * i]),
                                                             merge.derived_title(texts[2 * i + 1])),
                                      float(np.dot(vecs[2 * i], vecs[2 * i + 1])), cfg.merge)
            if label and direct >= cfg.merge.threshold:
                missed_by_index += 1
        scored.append({"label": label, "grade": grade, "exact": exact[i], "score": None if p is None else p.score,
                       "contradictions": [] if p is None else p.contradictions})
    t = cfg.merge.threshold
    flagged = sum(1 for s in scored if s["score"] is not None and s["score"] >= t and s["contradictions"])
    reasons: dict[str, int] = {}
    for s in scored:
        if s["score"] is not None and s["score"] >= t:
            for r in s["contradictions"]:
                reasons[r] = reasons.get(r, 0) + 1
    return {
        "pairs": len(pairs), "duplicates": sum(1 for p in pairs if p[2]),
        "exact_duplicates": sum(exact), "found_by_index": len([s for s in scored if s["score"] is not None]),
        "true_duplicates_over_threshold_missed_by_index": missed_by_index,
        "at_threshold": {"threshold": t, **evaluate(scored, t)},
        "at_threshold_without_guard": {"threshold": t, **evaluate(scored, t, guard=False)},
        "flagged_as_conflicts_at_threshold": flagged, "conflict_reasons_at_threshold": reasons,
        "sweep": [{"threshold": x, **evaluate(scored, x)} for x in SWEEP],
        "sweep_without_guard": [{"threshold": x, **evaluate(scored, x, guard=False)} for x in SWEEP],
        "seconds": {"embed": round(t_embed, 1), "load": round(t_admit, 1), "index": round(t_index, 1),
                    "scan": round(t_scan, 1)},
    }


def pick_threshold(results: dict) -> dict:
    """The default threshold from the sweep (guard on).

    strict: lowest threshold with false-merge rate (1 - precision) < 2 % on each data set,
    against the binary labels (MRPC 1; STS-B >= 4).
    picked (the default): lowest threshold whose merges include < 2 % of pairs STS-B grades
    below 3 (a different meaning), with a few dozen merges at least so the rate means something.
    """
    ok = {}
    for name, res in results.items():
        ok[name] = {row["threshold"] for row in res["sweep"]
                    if row["false_merge_rate"] < FALSE_MERGE_TARGET and row["tp"] > 0}
    both = sorted(set.intersection(*ok.values())) if ok else []
    per_set = {name: (min(v) if v else None) for name, v in ok.items()}
    lenient = [row["threshold"] for row in results.get("stsb", {}).get("sweep", [])
               if row.get("different_meaning_merge_rate", 1) < FALSE_MERGE_TARGET and row["tp"] + row["fp"] >= 30]
    return {"strict_rule": f"lowest threshold with false-merge rate (1 - precision) < {FALSE_MERGE_TARGET} "
                           "on each data set (binary labels)",
            "strict_per_data_set": per_set, "strict_all_data_sets": both[0] if both else None,
            "rule": f"lowest threshold whose STS-B merges include < {FALSE_MERGE_TARGET} of pairs graded "
                    f"< {DIFFERENT_MEANING} (different meaning), >= 30 merges",
            "picked": min(lenient) if lenient else None}


# -- scale --------------------------------------------------------------------------------------
WORDS = ("alpha beta gamma delta cache queue disk node shard pod deploy rollback alert metric latency error "
         "retry timeout quota budget ledger invoice payment checkout cart search index vector graph edge "
         "memory session token lease lock replica leader follower backup restore snapshot schema migration "
         "feature flag canary release build test lint deploy config secret vault policy role user tenant").split()


def synthetic_store(n: int, per_subject: int = 20, dup_share: float = 0.05, seed: int = 7) -> dict:
    """The synthetic store's memories (titles, contents, subject numbers, unit vectors) and its
    planted near-duplicate pairs; the same seed always gives the same store."""
    rng = np.random.default_rng(seed)
    dims = 384
    subjects = n // per_subject
    n_dup = int(n * dup_share)
    n_base = n - n_dup
    centroids = rng.standard_normal((subjects, dims))
    centroids /= np.linalg.norm(centroids, axis=1, keepdims=True)
    subj_of = np.arange(n_base) % subjects
    base = centroids[subj_of] + rng.standard_normal((n_base, dims)) * (0.8 / np.sqrt(dims))
    src = rng.choice(n_base, size=n_dup, replace=False)
    dups = base[src] + rng.standard_normal((n_dup, dims)) * (0.12 / np.sqrt(dims))
    vecs = np.vstack([base, dups])
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    words = np.array(WORDS)
    titles = [" ".join(rng.choice(words, 5)) for _ in range(n_base)]
    contents = [" ".join(rng.choice(words, 14)) for _ in range(n_base)]
    subj_all = np.concatenate([subj_of, subj_of[src]])
    titles += [titles[s][:-1] + "s" for s in src]  # a near-identical title
    contents += [contents[s] + " again" for s in src]
    planted = {tuple(sorted((f"b-{int(s):06d}", f"b-{n_base + j:06d}"))) for j, s in enumerate(src)}
    return {"n": n, "titles": titles, "contents": contents, "subjects": subj_all, "vecs": vecs, "planted": planted}


def write_store(g: Graphcons, store: dict) -> float:
    """Write the synthetic store in batches of 1,000 (bench/cypher/merge_load.cypher); seconds."""
    t0 = time.perf_counter()
    batch = []
    n = store["n"]
    for i in range(n):
        mem = parse_input({"content": store["contents"][i], "title": store["titles"][i],
                           "subject": f"subj-{int(store['subjects'][i]):05d}", "source": f"src-{i % 7}",
                           "created_at": CREATED, "id": f"b-{i:06d}"}, max_title=1000, max_content=10_000)
        batch.append(node_props(mem, content_hash(mem.content), store["vecs"][i].tolist(), None, g.config.weights))
        if len(batch) == 1000 or i == n - 1:
            g.db.run_text(query("merge_load"), rows=batch)
            batch = []
    return time.perf_counter() - t0


def load_scale(g: Graphcons, n: int) -> tuple[set[tuple[str, str]], float, float]:
    """Wipe, write the synthetic store, build the index: (planted pairs, load s, index s)."""
    wipe(g)
    store = synthetic_store(n)
    t_load = write_store(g, store)
    t_index = build_index(g)
    print(f"scale: loaded {n} memories in {t_load:.0f} s, vector index built in {t_index:.0f} s", flush=True)
    return store["planted"], t_load, t_index


# Issue 15's starting point (bench/merge/results/merge.json before it, commit 42abe34): one vector-index
# query per memory, one transaction per decided pair; measured under load on the 2 shared cores.
BASELINE_100K = {
    "memories": 100_000, "pass_writing_proposals_seconds": 1584.7, "memories_per_second": 63.1,
    "planted_recall": 0.9998, "planted_found": 4999, "planted_near_duplicates": 5000, "proposals_not_planted": 0,
    "threshold": 0.92, "candidates": "vector index, search_width 50, top_k 5 (merge.job.index_candidate_pairs)",
    "note": "the seed-score threshold then was 0.92; today's candidate floor is 0.65, so the new pass decides "
            "~10x more pairs (the verifier and the RELATED links of issue 11)",
}


def scale(g: Graphcons, n: int, second_pass: bool = False, keep_store: bool = False, reference: bool = False) -> dict:
    from bench.clusters.planted import RssSampler, java_pid

    cfg = g.config
    stored = g.db.run_text("MATCH (m:Memory) RETURN count(m) AS n")[0]["n"] if keep_store else -1
    if stored == n:  # the same synthetic store (same seed): only the earlier pass's output is cleared
        planted = planted_pairs(n)
        clear_merge_output(g)
        t_load = t_index = None
        print(f"scale: kept the stored {n} memories, cleared the earlier pass", flush=True)
    else:
        planted, t_load, t_index = load_scale(g, n)
    ref, ref_seconds = None, None
    if reference:  # the old candidate definition on the same store, a dry run before (it would write the same)
        t0 = time.perf_counter()
        ref = merge.run(g.db, cfg, now=NOW, candidates=merge.index_candidate_pairs)
        ref_seconds = round(time.perf_counter() - t0, 1)
        print(f"scale: reference (vector index) dry pass {ref_seconds} s", flush=True)
    sampler = RssSampler(java_pid())
    done = [0]
    t0 = time.perf_counter()

    def tick(k: int) -> None:
        done[0] += k
        if done[0] % 10_000 < k:
            print(f"  merge pass: {done[0]} memories scanned after {time.perf_counter() - t0:.0f} s", flush=True)

    load_before = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    figures: dict = {}
    with sampler.phase(figures, "pass"):
        wet = merge.run(g.db, cfg, now=NOW, dry_run=False, progress=tick)
    t_wet = figures["pass_s"]
    load_after = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    got = {(p.a, p.b) for p in wet.proposed}
    again, t_again = None, None
    if second_pass:
        t0 = time.perf_counter()
        again = merge.run(g.db, cfg, now=NOW, dry_run=False)
        t_again = time.perf_counter() - t0
    out = {
        "memories": n, "subjects": n // 20, "planted_near_duplicates": len(planted),
        "embeddings": "synthetic, precomputed (subject centroid + noise; duplicates = member + small noise)",
        "candidates": "exact per block (namespace + subject) on the server (merge.blocking)",
        "load_seconds": None if t_load is None else round(t_load, 1),
        "vector_index_build_seconds": None if t_index is None else round(t_index, 1),
        "pass_writing_proposals_seconds": round(t_wet, 1),
        "second_pass_seconds": None if t_again is None else round(t_again, 1),
        "memories_per_second": round(n / t_wet, 1),
        "over_threshold": wet.over_threshold, "proposals_written": len(wet.proposed),
        "related_links_written": len(wet.related), "conflicts_written": len(wet.conflicts),
        "second_pass_new_proposals": None if again is None else len(again.proposed),
        "threshold": cfg.merge.threshold, "top_k": cfg.merge.top_k,
        "planted_found": len(planted & got), "planted_recall": round(len(planted & got) / len(planted), 4),
        "proposals_not_planted": len(got - planted),
        "peak_rss_neo4j_mb": figures["pass_peak_rss_neo4j_mb"], "peak_rss_python_mb": figures["pass_peak_rss_python_mb"],
        "uptime_before": load_before, "uptime_after": load_after,
        "command": "NEO4J_URI=... python -m bench.merge.speed " + " ".join(sys.argv[1:]),
    }
    if reference:
        ref_got = {(p.a, p.b) for p in ref.proposed}
        out["reference"] = {"seconds_dry": ref_seconds, "over_threshold": ref.over_threshold,
                            "planted_found": len(planted & ref_got), "proposals_not_planted": len(ref_got - planted),
                            "proposed_by_reference_not_by_block_pass": len(ref_got - got),
                            "proposed_by_block_pass_not_by_reference": len(got - ref_got)}
    sampler.stop()
    return out


def planted_pairs(n: int, dup_share: float = 0.05, seed: int = 7) -> set[tuple[str, str]]:
    """The planted pairs of load_scale's store, drawn again from the same seed."""
    rng = np.random.default_rng(seed)
    subjects, n_dup = n // 20, int(n * dup_share)
    n_base = n - n_dup
    rng.standard_normal((subjects, 384))
    rng.standard_normal((n_base, 384))
    src = rng.choice(n_base, size=n_dup, replace=False)
    return {tuple(sorted((f"b-{int(s):06d}", f"b-{n_base + j:06d}"))) for j, s in enumerate(src)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wipe", action="store_true", help="required: the target database is emptied")
    ap.add_argument("--n-scale", type=int, default=100_000)
    ap.add_argument("--skip-scale", action="store_true")
    ap.add_argument("--skip-quality", action="store_true")
    ap.add_argument("--second-pass", action="store_true", help="time a second pass too (must find nothing new)")
    ap.add_argument("--keep-store", action="store_true",
                    help="reuse a stored synthetic store of --n-scale memories (e.g. 1M: loading takes long)")
    ap.add_argument("--reference", action="store_true",
                    help="also run the old vector-index candidate definition on the same store (slow: ~25 min at 100k)")
    args = ap.parse_args()
    if not args.wipe:
        sys.exit("bench/merge/speed.py empties the database named by NEO4J_URI; pass --wipe to confirm")
    cfg = load_config()
    embedder = MiniLMEmbedder()
    out: dict = {"machine": {"platform": platform.platform(), "python": platform.python_version()},
                 "config": {"merge": cfg.merge.model_dump()}, "now": NOW.isoformat()}
    with Graphcons(cfg, embedder=embedder) as g:
        if not args.skip_quality:
            out["quality"] = {}
            for name, loader in (("mrpc", load_mrpc), ("stsb", load_stsb)):
                res = quality(g, name, loader(), embedder)
                out["quality"][name] = res
                a = res["at_threshold"]
                print(f"{name}: {res['pairs']} pairs, threshold {a['threshold']}: P={a['precision']} R={a['recall']} "
                      f"F1={a['f1']} false merges={a['false_merge_rate']} different-meaning merges="
                      f"{a.get('different_meaning_merge_rate', '-')} ({res['seconds']})", flush=True)
            out["picked_threshold"] = pick_threshold(out["quality"])
            print("picked:", out["picked_threshold"], flush=True)
            for name, res in out["quality"].items():
                print(f"\n{name} sweep   t     P      R      F1   false-merge  different-meaning")
                for row in res["sweep"]:
                    print(f"        {row['threshold']:.2f}  {row['precision']:.3f}  {row['recall']:.3f}  "
                          f"{row['f1']:.3f}  {row['false_merge_rate']:.3f}        "
                          f"{row.get('different_meaning_merge_rate', '-')}")
        if not args.skip_scale:
            key = "scale_vs_reference" if args.reference else "scale"  # a comparison run keeps the timed one
            out[key] = scale(g, args.n_scale, second_pass=args.second_pass, keep_store=args.keep_store,
                             reference=args.reference)
            out["scale_baseline"] = BASELINE_100K
            out["scale_config"] = {"merge": cfg.merge.model_dump()}
            print("\nscale:", json.dumps(out[key], indent=2), flush=True)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    if RESULTS.is_file():  # keep the parts not re-run (decision_quality: written by bench/merge/quality.py)
        previous = json.loads(RESULTS.read_text())
        if "scale" in previous and "scale" not in out:  # the settings that scale run used
            out["scale_config"] = previous.get("scale_config", previous.get("config"))
        for key in ("quality", "picked_threshold", "scale", "scale_vs_reference", "decision_quality"):
            if key in previous and key not in out:
                out[key] = previous[key]
    RESULTS.write_text(json.dumps(out, indent=2) + "\n")
    plots.render(RESULTS)  # charts next to the figures
    print(f"saved {RESULTS}")


if __name__ == "__main__":
    main()
