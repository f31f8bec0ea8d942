"""Cluster-discovery benchmark (issue 3): GDS in Neo4j vs Python, on planted clusters.

    export GRAPHCONS_NEO4J_HOME=$PWD/.neo4j-planted GRAPHCONS_NEO4J_BOLT_PORT=7692 GRAPHCONS_NEO4J_HTTP_PORT=7482
    export GRAPHCONS_NEO4J_HEAP=5g GRAPHCONS_NEO4J_PAGECACHE=2g
    scripts/neo4j reset; scripts/neo4j start; eval "$(scripts/neo4j env)"
    python -m bench.clusters.planted --sizes 10k,100k,1m

The target database must be empty (the benchmark writes synthetic memories into one
namespace per size and never deletes anything): point it at a private server.

For each size it plants clusters (5-15 members, the size graphcons cares about) plus 5%
unclustered noise memories, with intra-cluster edges from all three signals and ~1 random
inter-cluster edge per memory, generated directly in Neo4j (UNWIND batches). Then, on the
same graph and in the same run:
  - graphcons scan (label propagation, default) and scan with Leiden: projection,
    detection and gate time, peak RSS of the Neo4j java process and of Python, NMI/ARI
    against the planted clusters;
  - (a) a per-node Python label propagation in the style of Graphiti's community builder:
    one neighbour query per node over the driver, then synchronous label propagation in
    Python, with a time cap (reports how far it got and an extrapolated full time);
  - (b) igraph (all sizes) and networkx (<= 100k) on an exported copy of the fused graph.
Also: a Leiden resolution (gamma) sweep, NMI on football.gml and on networkx LFR graphs.
Results: bench/clusters/results/clusters.json (and a printed summary with the ratios).

Issue 15 (scan speed): each scan records the machine load (1-minute load average before and
after) next to its timings, and every result file carries `baseline`: the scan figures before
issue 15 (projection + detection + gate, NMI), kept for comparison. The 1m run for the
quiet-machine figures, in one command (loads 1M memories once, ~6 min, then scans):

    python -m bench.clusters.planted --sizes 1m --gds-only --no-reference --reuse-bench-db \
        --load-by-element-id --out bench/clusters/results/clusters-1m.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import psutil
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from bench import plots  # noqa: E402
from graphcons.consolidation import communities, fusion  # noqa: E402
from graphcons.consolidation.cluster import Cluster  # noqa: E402
from graphcons.core.config import Config, Neo4jConfig  # noqa: E402
from graphcons.core.db import Database  # noqa: E402
from graphcons.core.embedders import embedder_identity  # noqa: E402
from graphcons.consolidation.scan import scan  # noqa: E402
from graphcons.core.time import utcnow  # noqa: E402
from graphcons.store import tie  # noqa: E402
from graphcons.store.schema import init as store_init  # noqa: E402

CYPHER = REPO / "bench" / "cypher"  # queries of this benchmark: bench/cypher/clusters_*.cypher
FOOTBALL = Path(os.environ.get("GRAPHCONS_FOOTBALL", REPO.parent / "shared" / "data" / "football.gml"))
SIZES = {"2k": 2_000, "10k": 10_000, "100k": 100_000, "1m": 1_000_000}
GAMMAS = [1, 5, 20, 50, 100, 200, 500, 1000]
DENSITIES = [0.02, 0.05, 0.07, 0.1, 0.15, 0.2]
BATCH = 20_000
T_START = time.perf_counter()
# The scan before issue 15 (seconds; the same planted graphs), kept next to the new figures.
BASELINE = {
    "source": "bench/clusters/results/clusters*.json (then bench/results/) before issue 15 (commit 42abe34) and the quiet re-measure in issue 15",
    "10k": {"label_propagation": {"projection": 5.61, "detection": 0.77, "gate": 3.60, "total": 10.39, "nmi": 0.9773,
                                  "load": "6-9"},
            "leiden": {"projection": 2.88, "detection": 1.48, "gate": 4.91, "total": 9.36, "nmi": 0.9864,
                       "load": "6-9"}},
    "100k": {"label_propagation": {"projection": 7.4, "detection": 2.1, "gate": 12.7, "total": 22.2, "nmi": 0.9846,
                                   "load": "quiet (re-measured)"},
             "leiden": {"projection": 24.43, "detection": 6.19, "gate": 40.08, "total": 70.90, "nmi": 0.9897,
                        "load": "6-9"}},
    "1m": {"label_propagation": {"projection": 91.34, "detection": 16.74, "gate": 114.61, "total": 223.63,
                                 "nmi": 0.9877, "peak_rss_neo4j_mb": 6367, "load": "quiet"},
           "leiden": {"projection": 116.11, "detection": 22.28, "gate": 111.43, "total": 250.42, "nmi": 0.9917,
                      "peak_rss_neo4j_mb": 6371, "load": "quiet"}},
}


def q(name: str) -> str:
    return (CYPHER / f"clusters_{name}.cypher").read_text()


def log(msg: str) -> None:
    print(f"[{time.perf_counter() - T_START:7.1f}s] {msg}", flush=True)


# -- memory sampling ------------------------------------------------------------------
class RssSampler:
    """Samples the RSS of the Neo4j java process and of this Python process."""

    def __init__(self, java_pid: int | None, interval: float = 0.2):
        self.java = psutil.Process(java_pid) if java_pid else None
        self.me = psutil.Process()
        self.interval = interval
        self.peak_java = 0
        self.peak_py = 0
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            time.sleep(self.interval)

    def sample(self) -> None:
        try:
            if self.java:
                self.peak_java = max(self.peak_java, self.java.memory_info().rss)
        except psutil.Error:
            pass
        self.peak_py = max(self.peak_py, self.me.memory_info().rss)

    @contextmanager
    def phase(self, out: dict, key: str):
        self.sample()
        self.peak_java, self.peak_py = 0, 0
        self.sample()
        t0 = time.perf_counter()
        yield
        out[f"{key}_s"] = round(time.perf_counter() - t0, 3)
        self.sample()
        out[f"{key}_peak_rss_neo4j_mb"] = round(self.peak_java / 2**20)
        out[f"{key}_peak_rss_python_mb"] = round(self.peak_py / 2**20)

    def stop(self) -> None:
        self._stop.set()


def java_pid() -> int | None:
    home = os.environ.get("GRAPHCONS_NEO4J_HOME")
    pidfile = Path(home) / "neo4j.pid" if home else REPO / ".neo4j" / "neo4j.pid"
    try:
        return int(pidfile.read_text().strip())
    except (OSError, ValueError):
        return None


# -- planted graph ------------------------------------------------------------------------
def planted(n: int, seed: int = 7):
    """Cluster labels (noise memories get their own label) and typed edges."""
    rng = np.random.default_rng(seed)
    labels = np.empty(n, dtype=np.int64)
    n_noise = n // 20
    i, c = 0, 0
    while i < n - n_noise:
        s = min(int(rng.integers(5, 16)), n - n_noise - i)
        labels[i:i + s] = c
        i, c = i + s, c + 1
    n_clusters = c
    labels[i:] = np.arange(c, c + (n - i))  # noise: singletons
    perm = rng.permutation(n)  # ids do not reveal clusters
    labels = labels[perm]
    members: dict[int, list[int]] = {}
    for node, lab in enumerate(labels):
        if lab < n_clusters:
            members.setdefault(int(lab), []).append(node)
    src, dst = [], []
    for nodes in members.values():
        s = len(nodes)
        p = min(1.0, 5.0 / (s - 1))
        arr = np.array(nodes)
        iu, ju = np.triu_indices(s, 1)
        keep = rng.random(len(iu)) < p
        src.append(arr[iu[keep]])
        dst.append(arr[ju[keep]])
    intra = sum(len(x) for x in src)
    # ~1 random edge per memory, to anywhere (inter-cluster noise; noise memories get theirs too)
    a = rng.integers(0, n, n)
    b = rng.integers(0, n, n)
    ok = a != b
    src.append(a[ok])
    dst.append(b[ok])
    src, dst = np.concatenate(src), np.concatenate(dst)
    kind = rng.random(len(src))  # signal mix: 50% SIMILAR, 25% LINKED, 25% CO_ACCESSED
    value = np.where(np.arange(len(src)) < intra, rng.uniform(0.82, 0.97, len(src)), rng.uniform(0.82, 0.88, len(src)))
    count = np.where(np.arange(len(src)) < intra, rng.integers(1, 5, len(src)), 1)
    return labels, n_clusters, src, dst, kind, value, count, intra


def load(db: Database, namespace: str, n: int, graph, by_element_id: bool = False) -> tuple[dict, list[str]]:
    labels, n_clusters, src, dst, kind, value, count, intra = graph
    ids = [f"{namespace}-{i:07d}" for i in range(n)]
    rng = np.random.default_rng(11)
    access = rng.integers(0, 4, n)
    out = {"memories": n, "planted_clusters": n_clusters, "noise_memories": n // 20,
           "edges": int(len(src)), "intra_edges": int(intra), "inter_edges": int(len(src) - intra)}
    t0 = time.perf_counter()
    for lo in range(0, n, BATCH):
        rows = [{"id": ids[i], "subject": "bench", "title": f"bench memory {i}", "access": int(access[i]),
                 "tie": tie.weight(ids[i])} for i in range(lo, min(n, lo + BATCH))]
        db.run_text(q("create_nodes"), rows=rows, namespace=namespace)
    refs = ids
    suffix = ""
    if by_element_id:  # direct node lookups instead of id-index seeks (faster loads at 1m)
        eid = {r["id"]: r["eid"] for r in db.run_text(q("element_ids"), namespace=namespace)}
        refs = [eid[m] for m in ids]
        suffix = "_by_eid"
    for name, mask in (("create_similar", kind < 0.5), ("create_linked", (kind >= 0.5) & (kind < 0.75)),
                       ("create_coaccess", kind >= 0.75)):
        idx = np.nonzero(mask)[0]
        text = q(name + suffix)
        for lo in range(0, len(idx), BATCH):
            part = idx[lo:lo + BATCH]
            if name == "create_similar":
                rows = [{"a": refs[src[j]], "b": refs[dst[j]], "v": float(value[j])} for j in part]
            elif name == "create_linked":
                rows = [{"a": refs[src[j]], "b": refs[dst[j]], "kind": "related"} for j in part]
            else:
                rows = [{"a": refs[src[j]], "b": refs[dst[j]], "v": int(count[j])} for j in part]
            db.run_text(text, rows=rows)
    out["load_s"] = round(time.perf_counter() - t0, 2)
    return out, ids


def found_labels(clusters, index: dict[str, int], n: int) -> np.ndarray:
    lab = np.arange(n, dtype=np.int64) + n  # unclustered memories: their own label
    for k, c in enumerate(clusters):
        for m in c.member_ids:
            lab[index[m]] = k
    return lab


def scores(truth: np.ndarray, found: np.ndarray) -> dict:
    return {"nmi": round(float(normalized_mutual_info_score(truth, found)), 4),
            "ari": round(float(adjusted_rand_score(truth, found)), 4)}


def parts_labels(parts, n: int) -> np.ndarray:
    lab = np.empty(n, dtype=np.int64)
    for k, p in enumerate(parts):
        for v in p:
            lab[v] = k
    return lab


# -- (a) Graphiti-style per-node label propagation ----------------------------------------
def graphiti_style(db: Database, ids: list[str], cfg, cap_s: float) -> dict:
    """One neighbour query per node over the driver, then Python label propagation."""
    cc = cfg.consolidation
    t0 = time.perf_counter()
    text = q("neighbours")
    adj: dict[str, dict[str, float]] = {}
    with db.driver.session(database=cfg.neo4j.database) as session:
        for i, mid in enumerate(ids):
            if time.perf_counter() - t0 > cap_s:
                break
            nb: dict[str, float] = {}
            for r in session.run(text, id=mid):
                if r["type"] == "SIMILAR":
                    w = cc.similarity_weight * r["score"] if r["score"] >= cc.similarity_floor else 0.0
                elif r["type"] == "LINKED":
                    w = cc.link_weight * cc.link_kind_weights.get(r["kind"], 1.0)
                else:
                    w = cc.coaccess_weight * r["count"] / (r["count"] + cc.coaccess_k)
                nb[r["id"]] = nb.get(r["id"], 0.0) + w
            adj[mid] = nb
    fetched = len(adj)
    fetch_s = time.perf_counter() - t0
    out = {"queries": fetched, "of": len(ids), "fetch_s": round(fetch_s, 2),
           "queries_per_s": round(fetched / fetch_s, 1) if fetch_s else None,
           "extrapolated_full_fetch_s": round(fetch_s * len(ids) / max(fetched, 1), 1),
           "completed_fetch": fetched == len(ids), "cap_s": cap_s}
    if fetched < len(ids):
        return out
    # Graphiti's loop: synchronous plurality vote, ties to the largest label, until stable.
    label = {m: i for i, m in enumerate(ids)}
    it, converged = 0, False
    while time.perf_counter() - t0 < cap_s:
        it += 1
        new = {}
        for m in ids:
            votes: dict[int, float] = {}
            for nb, w in adj[m].items():
                votes[label[nb]] = votes.get(label[nb], 0.0) + w
            if votes:
                best = max(votes.values())
                new[m] = max(lab for lab, v in votes.items() if v == best)
            else:
                new[m] = label[m]
        if new == label:
            converged = True
            break
        label = new
    out.update(iterations=it, converged=converged, total_s=round(time.perf_counter() - t0, 2))
    out["labels"] = label
    return out


# -- (b) igraph / networkx on an exported copy --------------------------------------------
def export(db: Database, cfg, namespace: str, index: dict[str, int]):
    name = fusion.new_graph_name(f"bench-export-{namespace}")
    t0 = time.perf_counter()
    fusion.project(db, cfg.consolidation, name, namespace=namespace)
    try:
        nid = {r["nid"]: index[r["id"]] for r in db.run_text(q("node_ids"), namespace=namespace)}
        s, t, w = [], [], []
        with db.driver.session(database=cfg.neo4j.database) as session:
            for r in session.run(q("export_edges"), graph_name=name):
                s.append(nid[r["s"]]); t.append(nid[r["t"]]); w.append(r["w"])
    finally:
        fusion.drop(db, name)
    return s, t, w, round(time.perf_counter() - t0, 2)


def run_igraph(n, s, t, w, truth, gamma) -> dict:
    import igraph as ig

    gr = ig.Graph(n=n, edges=list(zip(s, t)), edge_attrs={"weight": w})
    out = {}
    t0 = time.perf_counter()
    lp = gr.community_label_propagation(weights="weight")
    out["label_propagation"] = {"s": round(time.perf_counter() - t0, 3), **scores(truth, np.array(lp.membership))}
    for g_ in sorted({1.0, gamma}):
        t0 = time.perf_counter()
        ld = gr.community_leiden(objective_function="modularity", weights="weight", resolution=g_, n_iterations=-1)
        out[f"leiden_modularity_gamma_{g_:.4g}"] = {"s": round(time.perf_counter() - t0, 3),
                                                  **scores(truth, np.array(ld.membership))}
    return out


def run_networkx(n, s, t, w, truth) -> dict:
    import networkx as nx

    gr = nx.Graph()
    gr.add_nodes_from(range(n))
    gr.add_weighted_edges_from(zip(s, t, w))
    out = {}
    t0 = time.perf_counter()
    lp = list(nx.community.asyn_lpa_communities(gr, weight="weight", seed=1))
    out["asyn_lpa"] = {"s": round(time.perf_counter() - t0, 3), **scores(truth, parts_labels(lp, n))}
    t0 = time.perf_counter()
    lv = nx.community.louvain_communities(gr, weight="weight", seed=1)
    out["louvain_gamma_1"] = {"s": round(time.perf_counter() - t0, 3), **scores(truth, parts_labels(lv, n))}
    return out


# -- benchmark per size ---------------------------------------------------------------
VS_SCAN = """
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
from graphcons.core.config import Config, Neo4jConfig
from graphcons.core.db import Database
from graphcons.consolidation.scan import scan
from graphcons.core.time import utcnow
cfg = Config(neo4j=Neo4jConfig(uri=os.environ["NEO4J_URI"], user=os.environ.get("NEO4J_USER", "neo4j"),
                               password=os.environ.get("NEO4J_PASSWORD") or None))
report = scan(Database(cfg.neo4j), cfg, now=utcnow(), namespace=sys.argv[2], algorithm=sys.argv[3])
print(json.dumps({"timings": report.timings, "accepted": len(report.accepted), "decisions": len(report.decisions),
                  "clusters": [list(c.member_ids) for c in report.clusters]}))
"""


def vs_checkout(args, namespace: str, truth, index: dict[str, int], n: int, label: str) -> dict:
    """The same scans by another checkout of graphcons (e.g. the code before a change), on the same
    store in the same run, each in its own process: the side-by-side figures a speed change needs."""
    root = str(Path(args.vs_checkout).resolve())
    commit = os.popen(f"git -C {root} rev-parse --short HEAD").read().strip()
    out: dict = {"checkout": root, "commit": commit}
    for algo in args.algorithms:
        runs = []
        for _ in range(args.repeat):
            load_before = round(os.getloadavg()[0], 2)
            proc = subprocess.run([sys.executable, "-c", VS_SCAN, root, namespace, algo], capture_output=True,
                                  text=True, check=True)
            got = json.loads(proc.stdout.strip().splitlines()[-1])
            runs.append({**got["timings"], "load_before": load_before, "accepted": got["accepted"],
                         "decisions": got["decisions"], "_clusters": got["clusters"]})
        mid = dict(sorted(runs, key=lambda r: r["total"])[len(runs) // 2])
        clusters = [Cluster(member_ids=tuple(c), namespace=namespace) for c in mid.pop("_clusters")]
        mid.update(scores(truth, found_labels(clusters, index, n)))
        if len(runs) > 1:
            mid["runs"] = [{k: r.get(k) for k in ("projection", "detection", "gate", "total", "load_before")}
                           for r in runs]
        out[algo] = mid
        log(f"{label}: checkout {commit} {algo}: projection {mid['projection']}s detection {mid['detection']}s "
            f"gate {mid['gate']}s total {mid['total']}s NMI {mid['nmi']}")
    return out


def bench_size(db: Database, cfg, sampler: RssSampler, label: str, n: int, args) -> dict:
    namespace = f"bench{label}"
    res: dict = {"size": label}
    log(f"{label}: generating planted clusters")
    graph = planted(n)
    truth = graph[0]
    if db.run_text(q("namespace_count"), namespace=namespace)[0]["n"] == n:  # loaded by an earlier run
        ids = [f"{namespace}-{i:07d}" for i in range(n)]  # same seed, same graph
        res.update(reused_loaded_graph=True, memories=n, planted_clusters=graph[1])
        res["load_s"] = None
        info = {"memories": n, "edges": int(len(graph[2]))}
    else:
        with sampler.phase(res, "load"):
            info, ids = load(db, namespace, n, graph, by_element_id=args.load_by_element_id)
        res.update(info)
    index = {m: i for i, m in enumerate(ids)}
    log(f"{label}: loaded {info['memories']} memories, {info['edges']} edges in {res['load_s']}s")

    for algo in args.algorithms:
        runs = []
        for _ in range(args.repeat):
            out: dict = {"load_before": round(os.getloadavg()[0], 2)}
            with sampler.phase(out, "scan"):
                report = scan(db, cfg, now=utcnow(), namespace=namespace, algorithm=algo)
            out["load_after"] = round(os.getloadavg()[0], 2)
            out.update({k: v for k, v in report.timings.items()})
            runs.append(out)
        # The run of median total time stands for the scan (of an even number, the slower middle one);
        # every run's parts are kept (this machine's timings vary by 20-30 % from one scan to the next).
        out = dict(sorted(runs, key=lambda r: r["total"])[len(runs) // 2])
        if len(runs) > 1:
            out["runs"] = [{k: r[k] for k in ("projection", "detection", "gate", "total", "load_before")} for r in runs]
        out.update(detector=report.detector_config, clusters=len(report.clusters), decisions=len(report.decisions),
                   accepted=len(report.accepted), warnings=report.warnings,
                   **scores(truth, found_labels(report.clusters, index, n)))
        res[f"gds_{algo}"] = out
        log(f"{label}: GDS {algo}: projection {out['projection']}s detection {out['detection']}s "
            f"gate {out['gate']}s total {out['total']}s NMI {out['nmi']} ARI {out['ari']} (neo4j peak {out['scan_peak_rss_neo4j_mb']} MB, "
            f"python peak {out['scan_peak_rss_python_mb']} MB, load {out['load_before']}-{out['load_after']})")
    if args.vs_checkout:
        res["vs_checkout"] = vs_checkout(args, namespace, truth, index, n, label)

    if args.gds_only:
        return res
    if label in args.gamma_sweep:
        res["leiden_gamma_sweep"] = gamma_sweep(db, cfg, namespace, index, truth, n)

    log(f"{label}: Graphiti-style per-node label propagation (cap {args.python_cap}s)")
    gs: dict = {}
    with sampler.phase(gs, "graphiti_style"):
        gl = graphiti_style(db, ids, cfg, args.python_cap)
    if "labels" in gl:
        labs = gl.pop("labels")
        gl.update(scores(truth, np.array([labs[m] for m in ids])))
    res["graphiti_style"] = {**gl, **{k: v for k, v in gs.items() if "rss" in k}}
    log(f"{label}: Graphiti-style: {gl['queries']}/{gl['of']} neighbour queries in {gl['fetch_s']}s "
        f"(extrapolated full fetch {gl['extrapolated_full_fetch_s']}s), converged={gl.get('converged')}")

    ex: dict = {}
    with sampler.phase(ex, "export"):
        s, t, w, export_s = export(db, cfg, namespace, index)
    res["export"] = {"s": export_s, "edges": len(s), **{k: v for k, v in ex.items() if "rss" in k}}
    ig_out: dict = {}
    with sampler.phase(ig_out, "igraph"):
        lei = res["gds_leiden"].get("detector", {}).get("gamma", cfg.consolidation.leiden_gamma)
        ig_out.update(run_igraph(n, s, t, w, truth, lei))
    res["igraph"] = ig_out
    log(f"{label}: igraph LPA {ig_out['label_propagation']} ")
    if n <= args.networkx_max:
        nx_out: dict = {}
        with sampler.phase(nx_out, "networkx"):
            nx_out.update(run_networkx(n, s, t, w, truth))
        res["networkx"] = nx_out
        log(f"{label}: networkx {nx_out}")
    del s, t, w

    gds_lp = res["gds_label_propagation"]
    gds_detect = gds_lp["projection"] + gds_lp["detection"]
    ratios = {}
    if gl.get("completed_fetch") and gl.get("converged") is not None:
        key = "graphiti_style_total_over_gds_lpa_scan"
        if not gl["converged"]:  # stopped by the cap: the true ratio is at least this
            key += "_lower_bound_capped"
        ratios[key] = round(gl["total_s"] / gds_lp["total"], 1)
    ratios["graphiti_style_fetch_extrapolated_over_gds_projection_plus_lpa"] = round(
        gl["extrapolated_full_fetch_s"] / gds_detect, 1)
    ratios["igraph_lpa_plus_export_over_gds_projection_plus_lpa"] = round(
        (ig_out["label_propagation"]["s"] + export_s) / gds_detect, 2)
    ratios["igraph_lpa_alone_over_gds_lpa_detection"] = round(ig_out["label_propagation"]["s"] / gds_lp["detection"], 2)
    if "networkx" in res:
        ratios["networkx_lpa_plus_export_over_gds_projection_plus_lpa"] = round(
            (res["networkx"]["asyn_lpa"]["s"] + export_s) / gds_detect, 2)
    res["ratios"] = ratios
    log(f"{label}: ratios {ratios}")
    return res


def gamma_sweep(db: Database, cfg, namespace: str, index, truth, n) -> list[dict]:
    """Leiden at fixed resolutions and at density-derived ones, on one projection."""
    name = fusion.new_graph_name(f"bench-sweep-{namespace}")
    proj = fusion.project(db, cfg.consolidation, name, namespace=namespace)
    out = []
    seed = cfg.consolidation.leiden_seed
    try:
        for mode, value in [("gamma", g_) for g_ in GAMMAS] + [("density", d) for d in DENSITIES]:
            det = communities.Leiden(value, seed) if mode == "gamma" else communities.Leiden(1.0, seed, value)
            t0 = time.perf_counter()
            clusters = det.detect(db, proj)
            sizes = [c.size for c in clusters]
            row = {mode: value, "resolution": round(det.resolution(proj), 3), "s": round(time.perf_counter() - t0, 3),
                   "clusters": len(clusters), "median_size": float(np.median(sizes)) if sizes else 0,
                   "max_size": max(sizes, default=0), **scores(truth, found_labels(clusters, index, n))}
            out.append(row)
            log(f"  leiden {mode} {value} (gamma {row['resolution']}): NMI {row['nmi']} ARI {row['ari']} "
                f"clusters {row['clusters']} median {row['median_size']} max {row['max_size']}")
    finally:
        fusion.drop(db, name)
    return out


# -- football and LFR ------------------------------------------------------------------
def load_plain_graph(db: Database, namespace: str, nodes: list, edges: list) -> list[str]:
    ids = [f"{namespace}-{i:05d}" for i in range(len(nodes))]
    pos = {v: i for i, v in enumerate(nodes)}
    rng = np.random.default_rng(3)
    db.run_text(q("create_nodes"), namespace=namespace,
                rows=[{"id": m, "subject": "bench", "title": m, "access": int(rng.integers(0, 4)), "tie": tie.weight(m)}
                      for m in ids])
    db.run_text(q("create_linked"), rows=[{"a": ids[pos[a]], "b": ids[pos[b]], "kind": "related"} for a, b in edges])
    return ids


def reference_graphs(db: Database, cfg) -> dict:
    import igraph as ig
    import networkx as nx

    out = {}
    graphs = []
    if FOOTBALL.is_file():
        fb = nx.read_gml(FOOTBALL, label="id")
        graphs.append(("football", fb, [fb.nodes[v]["value"] for v in fb.nodes]))
    for mu in (0.1, 0.3, 0.5):
        try:
            lfr = nx.LFR_benchmark_graph(1000, 3, 1.5, mu, average_degree=10, min_community=20, max_community=100,
                                         seed=42)
        except nx.ExceededMaxIterations:
            continue
        comm = {}
        for v in lfr.nodes:
            comm[v] = min(lfr.nodes[v]["community"])
        lfr.remove_edges_from(nx.selfloop_edges(lfr))
        graphs.append((f"lfr_n1000_mu{mu}", lfr, [comm[v] for v in lfr.nodes]))
    for name, gr, truth_raw in graphs:
        nodes = list(gr.nodes)
        _, truth = np.unique(np.array(truth_raw), return_inverse=True)
        ns = f"ref-{name.replace('_', '-').replace('.', '')}"
        ids = load_plain_graph(db, ns, nodes, list(gr.edges))
        index = {m: i for i, m in enumerate(ids)}
        row = {"nodes": gr.number_of_nodes(), "edges": gr.number_of_edges(),
               "communities": int(len(set(truth.tolist())))}
        cc = cfg.consolidation
        for algo, det in (("gds_label_propagation", communities.make_detector(cc, "label_propagation")),
                          ("gds_leiden_default", communities.make_detector(cc, "leiden")),
                          ("gds_leiden_gamma_1", communities.Leiden(1.0, cc.leiden_seed))):
            gname = fusion.new_graph_name(f"bench-{ns}")
            proj = fusion.project(db, cc, gname, namespace=ns)
            try:
                clusters = det.detect(db, proj)
            finally:
                fusion.drop(db, gname)
            row[algo] = {"clusters": len(clusters), "config": det.config(proj),
                         **scores(truth, found_labels(clusters, index, len(nodes)))}
        igr = ig.Graph.from_networkx(nx.convert_node_labels_to_integers(gr))
        row["igraph_label_propagation"] = scores(truth, np.array(igr.community_label_propagation().membership))
        row["igraph_leiden_modularity_gamma_1"] = scores(
            truth, np.array(igr.community_leiden(objective_function="modularity", n_iterations=-1).membership))
        out[name] = row
        log(f"reference {name}: " + ", ".join(f"{k} NMI {v['nmi']}" for k, v in row.items() if isinstance(v, dict)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10k,100k,1m", help="comma list of 10k, 100k, 1m")
    ap.add_argument("--python-cap", type=float, default=60.0, help="time cap (s) of the Graphiti-style run")
    ap.add_argument("--networkx-max", type=int, default=100_000, help="largest size networkx is run on")
    ap.add_argument("--gamma-sweep", default="10k,100k", help="sizes on which to sweep Leiden gamma")
    ap.add_argument("--leiden-gamma", type=float, default=None, help="override [consolidation] leiden_gamma")
    ap.add_argument("--budget", type=float, default=1200.0, help="skip remaining sizes past this many seconds")
    ap.add_argument("--out", default=str(REPO / "bench" / "clusters" / "results" / "clusters.json"))
    ap.add_argument("--reuse-bench-db", action="store_true",
                    help="accept a database holding only earlier benchmark namespaces (sizes not yet run)")
    ap.add_argument("--no-reference", action="store_true", help="skip football and LFR")
    ap.add_argument("--gds-only", action="store_true", help="only the graphcons scans (no Python baselines)")
    ap.add_argument("--algorithms", default="label_propagation,leiden", help="GDS algorithms to scan with")
    ap.add_argument("--load-by-element-id", action="store_true", help="create edges by element id (faster)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="scans per algorithm and size (the median run is reported; of two, the slower)")
    ap.add_argument("--vs-checkout", default=None,
                    help="another checkout of graphcons (e.g. `git worktree add /tmp/before <commit>`) whose scans "
                         "run on the same store in the same run, side by side")
    args = ap.parse_args()
    args.gamma_sweep = [s for s in args.gamma_sweep.split(",") if s]
    args.algorithms = [a for a in args.algorithms.split(",") if a]

    cfg = Config(neo4j=Neo4jConfig(uri=os.environ.get("NEO4J_URI", "bolt://127.0.0.1:7687"),
                                   user=os.environ.get("NEO4J_USER", "neo4j"),
                                   password=os.environ.get("NEO4J_PASSWORD") or None))
    if args.leiden_gamma is not None:
        cfg.consolidation.leiden_gamma = args.leiden_gamma
    db = Database(cfg.neo4j)
    if db.run_text(q("count_memories"))[0]["n"] and not (
            args.reuse_bench_db and not db.run_text(q("non_bench_memories"))[0]["n"]):
        sys.exit("bench/clusters/planted.py needs an empty database (it never deletes); use a private server: "
                 "scripts/neo4j reset && scripts/neo4j start with your GRAPHCONS_NEO4J_HOME")
    store_init(db, *embedder_identity(cfg.embedding))  # the default embedder's schema (no vectors written)
    sampler = RssSampler(java_pid())
    log("warm-up: a small planted graph, scanned once untimed (query compilation)")
    warm = planted(500, seed=99)
    if not db.run_text(q("namespace_count"), namespace="benchwarmup")[0]["n"]:
        load(db, "benchwarmup", 500, warm)
    for algo in ("label_propagation", "leiden"):
        scan(db, cfg, now=utcnow(), namespace="benchwarmup", algorithm=algo)
    results = {
        "benchmark": "clusters", "at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "ram_gb": round(psutil.virtual_memory().total / 2**30, 1),
                    "python": platform.python_version(), "neo4j_heap": os.environ.get("GRAPHCONS_NEO4J_HEAP"),
                    "neo4j_pagecache": os.environ.get("GRAPHCONS_NEO4J_PAGECACHE"), "gds": db.gds_version()},
        "settings": cfg.consolidation.model_dump(mode="json"),
        "graph_model": "planted clusters of 5-15 members + 5% unclustered noise; intra-cluster edge probability "
                       "5/(size-1); ~1 random edge per memory anywhere; signals 50% SIMILAR, 25% LINKED, "
                       "25% CO_ACCESSED",
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "baseline": BASELINE,
        "sizes": {}, "skipped": [],
    }
    out_path = Path(args.out)
    last: tuple[str, float] | None = None
    try:
        for label in [s for s in args.sizes.split(",") if s]:
            elapsed = time.perf_counter() - T_START
            if elapsed > args.budget:
                skip = {"size": label, "reason": f"time budget {args.budget:.0f}s spent ({elapsed:.0f}s elapsed)"}
                if last:  # linear extrapolation from the largest size run
                    skip["estimated_s_at_measured_rate"] = round(last[1] * SIZES[label] / SIZES[last[0]])
                    skip["estimated_from"] = last[0]
                results["skipped"].append(skip)
                log(f"{label}: skipped: {skip}")
                continue
            t_size = time.perf_counter()
            results["sizes"][label] = bench_size(db, cfg, sampler, label, SIZES[label], args)
            results["sizes"][label]["size_wall_s"] = round(time.perf_counter() - t_size, 1)
            last = (label, time.perf_counter() - t_size)
            out_path.write_text(json.dumps(results, indent=2))
        if not args.no_reference:
            results["reference_graphs"] = reference_graphs(db, cfg)
    finally:
        sampler.stop()
        results["python_ru_maxrss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
        results["wall_s"] = round(time.perf_counter() - T_START, 1)
        out_path.write_text(json.dumps(results, indent=2))
        db.close()
    plots.render(out_path)  # charts next to the figures
    log(f"saved {out_path}")


if __name__ == "__main__":
    main()
