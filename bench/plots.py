"""Charts of the benchmark results: PNGs next to each bench/<concern>/results/*.json (matplotlib).

    python -m bench.plots                  # every results file -> bench/<concern>/results/plots/*.png
    python -m bench.plots bench/merge/results/merge.json

Each bench script calls `render(path)` after it saves its JSON, so its charts always match
its figures. A results file of a kind this module does not know is skipped with a message.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

BENCH = Path(__file__).resolve().parent


def results_files() -> list[Path]:
    """Every saved result, in each concern's results folder."""
    return sorted(BENCH.glob("*/results/*.json"))


def _save(fig, out: Path) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def admission(data: dict, stem: str, out_dir: Path) -> list[Path]:
    """p50 / p95 admission latency per store size, with and without the embedding."""
    sizes = sorted(data["sizes"], key=int)
    fig, ax = plt.subplots(figsize=(7, 4))
    width, x = 0.2, range(len(sizes))
    for i, (phase, pct) in enumerate([(p, q) for p in ("excluding_embedding", "including_embedding")
                                      for q in ("p50_ms", "p95_ms")]):
        vals = [data["sizes"][s].get(phase, {}).get(pct, 0) for s in sizes]
        ax.bar([xi + (i - 1.5) * width for xi in x], vals, width, label=f"{pct[:3]} {phase.replace('_', ' ')}")
    ax.set_xticks(list(x), [f"{int(s):,} stored" for s in sizes])
    ax.set_ylabel("ms per admission")
    ax.set_title("Admission latency")
    ax.legend(fontsize=8)
    return [_save(fig, out_dir / f"{stem}-latency.png")]


def _scan_seconds(entry: dict) -> dict[str, float]:
    """Seconds per method at one size: graphcons' scans and the in-process references."""
    out = {}
    for key, label in (("gds_label_propagation", "graphcons LPA (GDS)"), ("gds_leiden", "graphcons Leiden (GDS)")):
        if isinstance(entry.get(key), dict) and entry[key].get("total") is not None:
            out[label] = entry[key]["total"]
    vs = entry.get("vs_checkout")
    if isinstance(vs, dict):  # the same scans by another checkout (the code before a change), same run
        for key, label in (("label_propagation", "LPA"), ("leiden", "Leiden")):
            if isinstance(vs.get(key), dict) and vs[key].get("total") is not None:
                out[f"graphcons {label} before ({vs.get('commit')})"] = vs[key]["total"]
    if isinstance(entry.get("graphiti_style"), dict) and entry["graphiti_style"].get("total_s"):
        out["Graphiti-style per-node LPA (capped)"] = entry["graphiti_style"]["total_s"]
    for lib, algo in (("igraph", "label_propagation"), ("networkx", "asyn_lpa")):
        if isinstance(entry.get(lib), dict) and isinstance(entry[lib].get(algo), dict):
            out[f"{lib} {algo} (in memory)"] = entry[lib][algo]["s"]
    return out


def clusters(data: dict, stem: str, out_dir: Path) -> list[Path]:
    """Scan time vs memories (log-log) per method, and NMI per method per graph."""
    paths = []
    sizes = sorted(data.get("sizes", {}).values(), key=lambda e: e.get("memories", 0))
    series: dict[str, list[tuple[int, float]]] = {}
    for e in sizes:
        for label, s in _scan_seconds(e).items():
            series.setdefault(label, []).append((e["memories"], s))
    if series:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for label, pts in sorted(series.items()):
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("memories")
        ax.set_ylabel("seconds")
        ax.set_title("Cluster scan time (projection + detection + gate for graphcons)")
        ax.legend(fontsize=7)
        paths.append(_save(fig, out_dir / f"{stem}-scan-time.png"))
    nmi: dict[str, dict[str, float]] = {}
    for e in sizes:
        for key in ("gds_label_propagation", "gds_leiden", "graphiti_style"):
            if isinstance(e.get(key), dict) and e[key].get("nmi") is not None:
                nmi.setdefault(key, {})[e["size"]] = e[key]["nmi"]
    for name, g in (data.get("reference_graphs") or {}).items():
        for key, v in g.items():
            if isinstance(v, dict) and v.get("nmi") is not None:
                nmi.setdefault(key, {})[name] = v["nmi"]
    if nmi:
        graphs = sorted({gname for d in nmi.values() for gname in d})
        fig, ax = plt.subplots(figsize=(8, 4.5))
        width = 0.8 / len(nmi)
        for i, (algo, vals) in enumerate(sorted(nmi.items())):
            ax.bar([j + i * width for j in range(len(graphs))], [vals.get(gname, 0) for gname in graphs], width,
                   label=algo.replace("gds_", "GDS "))
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(graphs))], graphs)
        ax.set_ylim(0, 1.05)
        ax.set_ylabel("NMI against the planted / known communities")
        ax.set_title("Community quality per algorithm per graph")
        ax.legend(fontsize=7)
        paths.append(_save(fig, out_dir / f"{stem}-nmi.png"))
    return paths


def merge(data: dict, stem: str, out_dir: Path) -> list[Path]:
    """Precision / recall / F1 vs threshold per data set, the configured default marked."""
    quality = data.get("quality") or {}
    sets = [k for k, v in quality.items() if isinstance(v, dict) and v.get("sweep")]
    if not sets:
        return []
    default = ((data.get("config") or {}).get("merge") or {}).get("threshold")
    fig, axes = plt.subplots(1, len(sets), figsize=(5 * len(sets), 4), squeeze=False)
    for ax, name in zip(axes[0], sets):
        sweep = quality[name]["sweep"]
        t = [p["threshold"] for p in sweep]
        for metric in ("precision", "recall", "f1"):
            ax.plot(t, [p.get(metric) for p in sweep], label=metric)
        if default is not None:
            ax.axvline(default, color="grey", linestyle="--", label=f"default {default}")
        ax.set_xlabel("merge threshold")
        ax.set_ylim(0, 1.02)
        ax.set_title(f"Merge decisions on {name}")
        ax.legend(fontsize=8)
    return [_save(fig, out_dir / f"{stem}-threshold-sweep.png")]


def scale(data: dict, stem: str, out_dir: Path) -> list[Path]:
    """The one-store run (bench/store/scale.py): admission p95 and the scan / merge pass, each beside its target."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 4))
    a, t = data.get("admission", {}), data.get("targets", {})
    bars = [("p95 excl. embedding", a.get("excluding_embedding", {}).get("p95_ms", 0),
             t.get("admission_p95_excluding_embedding_ms")),
            ("p95 incl. embedding", a.get("including_embedding", {}).get("p95_ms", 0),
             t.get("admission_p95_including_embedding_ms"))]
    left.bar([b[0] for b in bars], [b[1] for b in bars], color="tab:blue", label="measured")
    left.scatter([b[0] for b in bars], [b[2] or 0 for b in bars], color="tab:red", marker="_", s=900, label="target")
    left.set_ylabel("ms per admission")
    left.legend(fontsize=8)
    secs = [("cluster scan", data.get("scan", {}).get("scan_s", 0), t.get("scan_1m_s")),
            ("merge pass", data.get("merge", {}).get("pass_s", 0), None)]
    right.bar([b[0] for b in secs], [b[1] for b in secs], color="tab:green")
    right.scatter([b[0] for b in secs if b[2]], [b[2] for b in secs if b[2]], color="tab:red", marker="_", s=900)
    right.set_ylabel("seconds")
    fig.suptitle(f"One store of {data.get('n', 0):,} memories")
    return [_save(fig, out_dir / f"{stem}-phases.png")]


KINDS = {"admission": admission, "clusters": clusters, "merge": merge, "scale": scale}


def render(path: str | Path, out_dir: Path | None = None) -> list[Path]:
    """The charts of one results file (its kind from `benchmark` or the file name), by default into
    the plots folder beside it."""
    path = Path(path)
    out_dir = out_dir or path.parent / "plots"
    data = json.loads(path.read_text())
    kind = data.get("benchmark") or path.stem.split("-")[0]
    fn = KINDS.get(kind)
    if fn is None:
        print(f"plots: no charts for {path.name} (kind {kind!r})", file=sys.stderr)
        return []
    return fn(data, path.stem, out_dir)


def main(argv: list[str]) -> None:
    files = [Path(a) for a in argv] or results_files()
    for f in files:
        for png in render(f):
            print(png)


if __name__ == "__main__":
    main(sys.argv[1:])
