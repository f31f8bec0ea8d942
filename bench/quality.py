"""Cluster quality on real, messy dev data (issue 12): what a new user would find.

    export GRAPHCONS_NEO4J_HOME=$PWD/.neo4j GRAPHCONS_NEO4J_BOLT_PORT=7692 GRAPHCONS_NEO4J_HTTP_PORT=7482
    scripts/neo4j reset; scripts/neo4j start; eval "$(scripts/neo4j env)"
    .venv/bin/python bench/quality.py --label after

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

Results go to bench/results/quality.json under --label (before / after), with the command,
the floor in effect, `uptime` load and timings. Lines with the same content are one memory
(admission's duplicate check); each line is scored through its memory.
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
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data"
SYSTEMS = ("Hadoop", "Spark", "Linux", "HealthApp")
INCIDENTS = ("inc-101", "inc-102", "inc-103", "inc-104", "inc-105", "pm-104")
TYPESCRIPT = ("pref-1", "pref-2", "pref-3")

sys.path.insert(0, str(REPO))
from bench import query  # noqa: E402
from graphcons.api import Graphcons  # noqa: E402
from graphcons.core.config import load_config  # noqa: E402
from graphcons.core.memory import LIVE_STATUSES  # noqa: E402
from graphcons.store.admission import admit  # noqa: E402


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def floor_of(cfg) -> float:
    cc = cfg.consolidation
    return float(getattr(cc, "similarity_floor", None) or cc.sim_floor)  # "before" has only sim_floor


def admit_all(g, items: list[dict]) -> list[str]:
    """Admit every item (batched embeddings); the memory id of each item, duplicates included."""
    out = []
    for i in range(0, len(items), 200):
        chunk = items[i:i + 200]
        vecs = g.embedder.embed([it["content"] for it in chunk])
        out.extend(admit(g.db, g.config, g.embedder, it, embedding=v).id for it, v in zip(chunk, vecs))
    return out


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


def loghub(g, args, data: Path) -> dict:
    cfg = g.config
    floor = floor_of(cfg)
    out = {}
    for system in args.systems.split(","):
        t0 = time.perf_counter()
        with open(data / "loghub" / f"{system}_2k.log_structured.csv", newline="") as f:
            lines = list(csv.DictReader(f))[:args.lines]
        ns = f"loghub-{system.lower()}"
        items = [{"id": f"{system.lower()}-{r['LineId']}", "content": r["Content"] or "(empty)", "subject": system,
                  "namespace": ns, "kind": "observation", "source": f"loghub-{system.lower()}"} for r in lines]
        mids = admit_all(g, items)
        t1 = time.perf_counter()
        report = g.scan(namespace=ns)
        t2 = time.perf_counter()
        truth = [r["EventId"] for r in lines]
        raw = labels_from([c.member_ids for c in report.clusters], mids)
        baselines = knn_baselines(g, ns, cfg.admission.similar_k, floor)
        accepted = [d.cluster.member_ids for d in report.accepted]
        in_acc = {m for grp in accepted for m in grp}
        lines_of: dict[str, list[str]] = defaultdict(list)
        for m, t in zip(mids, truth):
            lines_of[m].append(t)
        purities = []
        for grp in accepted:
            events = Counter(t for m in grp for t in lines_of[m])
            purities.append(events.most_common(1)[0][1] / sum(events.values()))
        rejected_by = Counter(r for d in report.rejected for r in d.rejected_by)
        out[system] = {
            "lines": len(lines), "memories": len(set(mids)), "templates": len(set(truth)),
            "communities": len(report.clusters), "largest_community": max((c.size for c in report.clusters), default=0),
            "graphcons": scores(truth, raw),
            **{name: scores(truth, [of[m] for m in mids]) for name, of in baselines.items()},
            "accepted_clusters": len(accepted),
            "lines_in_accepted": round(sum(1 for m in mids if m in in_acc) / len(mids), 4),
            "mean_purity_accepted": round(float(np.mean(purities)), 4) if purities else None,
            "min_purity_accepted": round(float(np.min(purities)), 4) if purities else None,
            "rejections": dict(sorted(rejected_by.items())),
            "seconds": {"admit": round(t1 - t0, 1), "scan": round(t2 - t1, 1)},
        }
        log(f"{system}: {json.dumps(out[system])}")
    return out


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
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "quality.json"))
    ap.add_argument("--data", default=str(DATA), help="the shared dev data folder")
    args = ap.parse_args()
    data = Path(args.data)
    cfg = load_config()
    t0 = time.perf_counter()
    result: dict = {"command": "python bench/quality.py " + " ".join(sys.argv[1:]),
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
