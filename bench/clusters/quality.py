"""Cluster quality on real, messy dev data (issue 12): what a new user would find.

    export GRAPHCONS_NEO4J_HOME=$PWD/.neo4j GRAPHCONS_NEO4J_BOLT_PORT=7692 GRAPHCONS_NEO4J_HTTP_PORT=7482
    scripts/neo4j reset; scripts/neo4j start; eval "$(scripts/neo4j env)"
    python -m bench.clusters.quality --label after

The target database must be empty (the benchmark admits memories and never deletes): point
it at a private server. Data from ../shared/data (never copied into the project):

- loghub: each line's Content of Hadoop, Spark, Linux and HealthApp (2k lines each) is a
  memory in namespace loghub-<system>, subject <system>. Per system: ARI and NMI of the raw
  communities (label propagation, the default) against EventId, the share of lines inside
  accepted clusters and the mean purity (majority EventId share) of accepted clusters; next
  to a baseline computed in the same run: the stored embeddings -> exact kNN graph (k =
  similar_k, the same floor) -> igraph label propagation (seeded Python RNG).
- memorybank: every user message of memorybank_en.json is a memory of that user (subject)
  in one shared namespace: share of fused SIMILAR edges within a subject, accepted clusters
  per user, communities and accepted clusters that mix users.
- demo: examples/memories.jsonl + sessions.json: do the six 503 incidents (inc-101..105,
  pm-104) and Ana's three TypeScript preferences each form one cluster, and is it accepted?

Results go to bench/clusters/results/quality.json under --label (before / after), with the command,
the floor in effect, `uptime` load and timings. Lines with the same content are one memory
(admission's duplicate check); each line is scored through its memory.

Speed: each system's distinct lines are embedded in one batched call and admitted through
store.admission.admit with that embedding, the loghub systems side by side (--jobs threads;
each system in line order, so its SIMILAR edges are those of a sequential run). The whole
run took 14 min at load 17-21 on 2 cores (admitting Hadoop alone one by one took 19 min).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import subprocess
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
# ../shared/data next to the checkout (a worktree one level deeper finds it one level up)
DATA = next((p for p in (REPO.parent / "shared" / "data", REPO.parent.parent / "shared" / "data") if p.is_dir()),
            REPO.parent / "shared" / "data")
SYSTEMS = ("Hadoop", "Spark", "Linux", "HealthApp")
INCIDENTS = ("inc-101", "inc-102", "inc-103", "inc-104", "inc-105", "pm-104")
TYPESCRIPT = ("pref-1", "pref-2", "pref-3")

sys.path.insert(0, str(REPO))
from bench import query  # noqa: E402
from graphcons.api import Graphcons  # noqa: E402
from graphcons.core.config import load_config  # noqa: E402
from graphcons.core.memory import LIVE_STATUSES, embedded_text  # noqa: E402
from graphcons.store.admission import admit  # noqa: E402


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def floor_of(cfg) -> float:
    cc = cfg.consolidation
    return float(getattr(cc, "similarity_floor", None) or cc.sim_floor)  # "before" has only sim_floor


def embed_all(g, items: list[dict]) -> dict[str, list[float]]:
    """Each distinct embedded text once, in one batched call (admission embeds the same text;
    a batch's padding is masked out, so a vector does not depend on its batch)."""
    texts = sorted(set(embedded_text(it.get("title"), it["content"]) for it in items), key=lambda t: (len(t), t))
    return dict(zip(texts, g.embedder.embed(texts)))  # by length: batches of similar length pad little


def admit_all(g, items: list[dict], vectors: dict[str, list[float]] | None = None) -> list[str]:
    """Admit every item in order through store.admission.admit with its precomputed embedding
    (duplicates become evidence, as in the product); the memory id of each item."""
    vectors = vectors if vectors is not None else embed_all(g, items)
    return [admit(g.db, g.config, g.embedder, it, embedding=vectors[embedded_text(it.get("title"), it["content"])]).id
            for it in items]


def scores(truth: list, found: list) -> dict:
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

    return {"ari": round(float(adjusted_rand_score(truth, found)), 4),
            "nmi": round(float(normalized_mutual_info_score(truth, found)), 4)}


def labels_from(groups: list[tuple[str, ...]], ids: list[str]) -> list[str]:
    """Each memory's community (its smallest member); singletons are their own community."""
    of = {m: grp[0] for grp in groups for m in grp}
    return [of.get(m, m) for m in ids]


def stored_embeddings(g, namespace: str) -> tuple[list[str], np.ndarray]:
    rows = g.db.run_text(query("quality_embeddings"), namespace=namespace, live=list(LIVE_STATUSES))
    return [r["id"] for r in rows], np.array([r["embedding"] for r in rows], dtype=np.float32)


def knn_edges(sim: np.ndarray, k: int, floor: float, rule: str = "fixed", gap: float = 0.05) -> dict:
    """Undirected kNN edges above the floor. rule "fixed": each node's top k; "mutual": only
    pairs in each other's top k; "adaptive": top k within `gap` of the node's best neighbour."""
    top = np.argsort(-sim, axis=1, kind="stable")[:, :k]
    tops = [set(map(int, row)) for row in top]
    edges: dict[tuple[int, int], float] = {}
    for i, row in enumerate(top):
        for j in map(int, row):
            s = float(sim[i, j])
            if s < floor or (rule == "mutual" and i not in tops[j]) or (rule == "adaptive" and s < sim[i, top[i, 0]] - gap):
                continue
            edges[(min(i, j), max(i, j))] = s
    return edges


def igraph_lpa(n: int, edges: dict, seed: int = 0) -> list[int]:
    import igraph as ig

    graph = ig.Graph(n=n, edges=list(edges), directed=False)
    random.seed(seed)
    ig.set_random_number_generator(random)
    return graph.community_label_propagation(weights=list(edges.values()) or None).membership


def knn_baselines(g, namespace: str, k: int, floor: float) -> dict[str, dict[str, str]]:
    """The baseline (stored embeddings -> kNN at the floor -> igraph LPA) and, on the same
    embeddings, the neighbour rules the floor could be replaced by (issue 12: measure them)."""
    ids, x = stored_embeddings(g, namespace)
    sim = x @ x.T
    np.fill_diagonal(sim, -1.0)
    out = {}
    for name, rule in (("baseline_knn_lpa", "fixed"), ("mutual_knn_lpa", "mutual"), ("adaptive_knn_lpa", "adaptive")):
        labels = igraph_lpa(len(ids), knn_edges(sim, k, floor, rule))
        out[name] = {ids[i]: f"b{c}" for i, c in enumerate(labels)}
    return out


def loghub_items(system: str, data: Path, n: int) -> tuple[list[dict], list[str]]:
    with open(data / "loghub" / f"{system}_2k.log_structured.csv", newline="") as f:
        lines = list(csv.DictReader(f))[:n]
    ns = f"loghub-{system.lower()}"
    items = [{"id": f"{system.lower()}-{r['LineId']}", "content": r["Content"] or "(empty)", "subject": system,
              "namespace": ns, "kind": "observation", "source": ns} for r in lines]
    return items, [r["EventId"] for r in lines]


def loghub_templates(system: str, data: Path) -> dict[str, str]:
    with open(data / "loghub" / f"{system}_2k.log_structured.csv", newline="") as f:
        return {r["EventId"]: r["EventTemplate"] for r in csv.DictReader(f)}


def loghub(g, args, data: Path) -> dict:
    """Embed each system's lines in one batched call, admit the systems side by side (one thread
    per system, each in line order: SIMILAR is chosen within a system's own namespace and
    subject, so the systems cannot affect each other's edges), then scan and score each."""
    cfg = g.config
    floor = floor_of(cfg)
    systems = args.systems.split(",")
    loaded = {s: loghub_items(s, data, args.lines) for s in systems}
    seconds: dict[str, dict[str, float]] = {s: {} for s in systems}
    vectors = {}
    for s in systems:
        t0 = time.perf_counter()
        vectors[s] = embed_all(g, loaded[s][0])
        seconds[s]["embed"] = round(time.perf_counter() - t0, 1)
        log(f"{s}: embedded {len(vectors[s])} distinct lines in {seconds[s]['embed']} s")

    def admit_system(s: str) -> list[str]:
        t0 = time.perf_counter()
        mids = admit_all(g, loaded[s][0], vectors[s])
        seconds[s]["admit"] = round(time.perf_counter() - t0, 1)
        log(f"{s}: admitted {len(mids)} lines in {seconds[s]['admit']} s")
        return mids

    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        admitted = dict(zip(systems, pool.map(admit_system, systems)))
    log(f"loghub: admitted {len(systems)} systems in {time.perf_counter() - t0:.1f} s")
    out = {}
    for system in systems:
        items, truth = loaded[system]
        mids = admitted[system]
        ns = items[0]["namespace"]
        t1 = time.perf_counter()
        report = g.scan(namespace=ns)
        seconds[system]["scan"] = round(time.perf_counter() - t1, 1)
        raw = labels_from([c.member_ids for c in report.clusters], mids)
        baselines = knn_baselines(g, ns, cfg.admission.similar_k, floor)
        contrast_on = cfg.consolidation.contrast_split
        cfg.consolidation.contrast_split = not contrast_on  # the same communities, gated the other way
        other = g.gate(report.clusters)
        cfg.consolidation.contrast_split = contrast_on
        other_figures = accepted_figures([d for d in other if d.accepted], [d for d in other if not d.accepted],
                                         mids, truth)
        out[system] = {
            "lines": len(items), "memories": len(set(mids)), "templates": len(set(truth)),
            "communities": len(report.clusters), "largest_community": max((c.size for c in report.clusters), default=0),
            "graphcons": scores(truth, raw),
            **{name: scores(truth, [of[m] for m in mids]) for name, of in baselines.items()},
            **accepted_figures(report.accepted, report.rejected, mids, truth),
            ("without_contrast_split" if contrast_on else "with_contrast_split"): {
                k: other_figures[k] for k in ("accepted_clusters", "lines_in_accepted", "mean_purity_accepted",
                                              "line_weighted_purity_accepted")},
            "lines_pure_ceiling": pure_ceiling(mids, truth, cfg.consolidation.min_size),
            "if_min_size_counted_repeated_lines": repeats_lever(report, mids, truth, cfg.consolidation.min_size),
            "impure_accepted": impure(report.accepted, mids, truth, loghub_templates(system, data)),
            "seconds": seconds[system],
        }
        log(f"{system}: {json.dumps(out[system])}")
    return out


def pure_ceiling(mids: list[str], truth: list[str], min_size: int) -> float:
    """The share of lines whose EventId spans >= min_size distinct memories: at most this many
    lines can sit in clusters of one template (a line repeated verbatim is one memory)."""
    distinct: dict[str, set[str]] = defaultdict(set)
    for m, t in zip(mids, truth):
        distinct[t].add(m)
    return round(sum(1 for t in truth if len(distinct[t]) >= min_size) / len(truth), 4)


def _lines_of(mids: list[str], truth: list[str]) -> dict[str, list[str]]:
    lines_of: dict[str, list[str]] = defaultdict(list)
    for m, t in zip(mids, truth):
        lines_of[m].append(t)
    return lines_of


def repeats_lever(report, mids: list[str], truth: list[str], min_size: int) -> dict:
    """Lever (a), measured, not built: the parts rejected as smaller than min_size memories that
    hold >= min_size lines (a line repeated by the same source: `repetitions`, not evidence,
    which counts distinct sources), and the share of lines in accepted clusters if they passed."""
    lines_of = _lines_of(mids, truth)
    small = [d.cluster.member_ids for d in report.rejected if d.rejected_by == ["size"] and d.cluster.size < min_size
             and sum(len(lines_of[m]) for m in d.cluster.member_ids) >= min_size]
    inside = {m for d in report.accepted for m in d.cluster.member_ids} | {m for grp in small for m in grp}
    purities = [Counter(t for m in grp for t in lines_of[m]).most_common(1)[0][1]
                / sum(len(lines_of[m]) for m in grp) for grp in small]
    return {"parts": len(small), "their_lines": sum(len(lines_of[m]) for grp in small for m in grp),
            "their_purity": [round(p, 4) for p in purities],
            "lines_in_accepted": round(sum(1 for m in mids if m in inside) / len(mids), 4)}


def impure(accepted, mids: list[str], truth: list[str], templates: dict[str, str], limit: int = 6) -> list[dict]:
    """The accepted clusters below purity 0.95, most lines first: what keeps the mean down."""
    lines_of = _lines_of(mids, truth)
    out = []
    for d in accepted:
        events = Counter(t for m in d.cluster.member_ids for t in lines_of[m])
        n = sum(events.values())
        purity = events.most_common(1)[0][1] / n
        if purity < 0.95:
            out.append({"members": d.cluster.size, "lines": n, "purity": round(purity, 4),
                        "templates": {f"{e} {templates[e]}"[:100]: c for e, c in events.most_common(3)}})
    return sorted(out, key=lambda r: (-r["lines"], r["purity"]))[:limit]


def accepted_figures(accepted_decisions, rejected_decisions, mids: list[str], truth: list[str]) -> dict:
    """Lines (not memories: a repeated line is evidence on one memory) inside accepted
    clusters, and each accepted cluster's purity (its majority EventId's share of its lines)."""
    lines_of = _lines_of(mids, truth)
    accepted = [d.cluster.member_ids for d in accepted_decisions]
    in_acc = {m for grp in accepted for m in grp}
    purities, sizes = [], []
    for grp in accepted:
        events = Counter(t for m in grp for t in lines_of[m])
        purities.append(events.most_common(1)[0][1] / sum(events.values()))
        sizes.append(sum(events.values()))
    return {
        "accepted_clusters": len(accepted),
        "lines_in_accepted": round(sum(1 for m in mids if m in in_acc) / len(mids), 4),
        "mean_purity_accepted": round(float(np.mean(purities)), 4) if purities else None,
        "line_weighted_purity_accepted": round(float(np.average(purities, weights=sizes)), 4) if purities else None,
        "min_purity_accepted": round(float(np.min(purities)), 4) if purities else None,
        "rejections": dict(sorted(Counter(r for d in rejected_decisions for r in d.rejected_by).items())),
    }


def memorybank(g, path: Path) -> dict:
    data = {name.strip(): v for name, v in json.loads(path.read_text()).items()}
    items = []
    for user in sorted(data):
        for day in sorted(data[user].get("history", {})):
            for i, turn in enumerate(data[user]["history"][day]):
                text = (turn.get("query") or "").strip()
                if text:
                    items.append({"id": f"mb-{user.replace(' ', '_')}-{day}-{i}", "content": text, "subject": user,
                                  "namespace": "memorybank", "kind": "observation", "source": f"chat-{user}"})
    admit_all(g, items)
    floor = floor_of(g.config)
    edges = g.db.run_text(query("quality_similar_edges"), namespace="memorybank", floor=floor)[0]
    report = g.scan(namespace="memorybank")
    ids = sorted({m for c in report.clusters for m in c.member_ids})
    subject = {r["id"]: r["subject"] for r in g.db.run_text(query("quality_subjects"), ids=ids)}
    mixing = sum(1 for c in report.clusters if len({subject[m] for m in c.member_ids}) > 1)
    per_user = Counter(d.cluster.subject for d in report.accepted)
    accepted_mixing = sum(1 for d in report.accepted if len({subject[m] for m in d.cluster.member_ids}) > 1)
    out = {
        "users": len(data), "memories": len(items),
        "similar_edges_fused": edges["total"],
        "similar_within_subject": round(edges["within"] / edges["total"], 4) if edges["total"] else None,
        "communities": len(report.clusters), "communities_mixing_users": mixing,
        "accepted_clusters": len(report.accepted), "accepted_mixing_users": accepted_mixing,
        "accepted_per_user": {u: per_user.get(u, 0) for u in sorted(data)},
        "users_with_an_accepted_cluster": sum(1 for u in data if per_user.get(u)),
    }
    log(f"memorybank: {json.dumps(out)}")
    return out


def demo(g) -> dict:
    items = [json.loads(line) for line in (REPO / "examples" / "memories.jsonl").read_text().splitlines() if line]
    admit_all(g, items)
    for session, ids in json.loads((REPO / "examples" / "sessions.json").read_text()).items():
        g.access(session, ids)
    out = {}
    for ns in ("ops", "assistant"):
        report = g.scan(namespace=ns)
        for name, group in (("incidents_503", INCIDENTS), ("typescript_prefs", TYPESCRIPT)):
            if not set(group) <= {it["id"] for it in items if it["namespace"] == ns}:
                continue
            holding = [c.member_ids for c in report.clusters if set(group) & set(c.member_ids)]
            accepted = [d.cluster.member_ids for d in report.accepted if set(group) <= set(d.cluster.member_ids)]
            out[name] = {"one_cluster": len(holding) == 1 and set(group) <= set(holding[0]),
                         "communities": [list(c) for c in holding], "accepted_as_one": bool(accepted)}
    log(f"demo: {json.dumps(out)}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--label", required=True, help="where in the results file: before / after / ...")
    ap.add_argument("--lines", type=int, default=2000, help="loghub lines per system")
    ap.add_argument("--parts", default="demo,memorybank,loghub")
    ap.add_argument("--systems", default=",".join(SYSTEMS), help="loghub systems, comma separated")
    ap.add_argument("--jobs", type=int, default=4, help="loghub systems admitted side by side (threads)")
    ap.add_argument("--out", default=str(REPO / "bench" / "clusters" / "results" / "quality.json"))
    ap.add_argument("--data", default=str(DATA), help="the shared dev data folder")
    args = ap.parse_args()
    data = Path(args.data)
    cfg = load_config()
    t0 = time.perf_counter()
    result: dict = {"command": "python -m bench.clusters.quality " + " ".join(sys.argv[1:]),
                    "code": subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                                           capture_output=True, text=True).stdout.strip(),
                    "uptime_before": os.popen("uptime").read().strip()}
    path = Path(args.out)

    def save() -> None:  # after each part: a long run stopped half way keeps what it measured
        result["seconds"] = round(time.perf_counter() - t0, 1)
        result["uptime_after"] = os.popen("uptime").read().strip()
        saved = json.loads(path.read_text()) if path.is_file() else {}
        saved[args.label] = result
        path.write_text(json.dumps(saved, indent=2) + "\n")

    with Graphcons(cfg) as g:
        g.init()
        result["similarity_floor"] = floor_of(g.config)
        result["algorithm"] = g.config.consolidation.algorithm
        result["max_size"] = g.config.consolidation.max_size
        parts = args.parts.split(",")
        if "demo" in parts:
            result["demo"] = demo(g)
            save()
        if "memorybank" in parts:
            result["memorybank"] = memorybank(g, data / "memorybank_en.json")
            save()
        if "loghub" in parts:
            result["loghub"] = loghub(g, args, data)
            save()
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
