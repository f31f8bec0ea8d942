"""Pictures: a provenance tree, a cluster with its fused edges, a subject or a memory's
neighbourhood, as one interactive HTML page drawn by Neo4j's own `neo4j-viz`.

Nodes are coloured by kind (insights stand out; a hypothesis lighter than a supported
insight), retired memories grey; edges are coloured by signal (SIMILAR, LINKED, CO_ACCESSED,
provenance, replacement, conflict) and their width follows the signal's strength. The
graph is read with the queries of cypher/viz/, which paste into the Browser as well.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

from neo4j_viz import Node, Relationship, VisualizationGraph

from graphcons.consolidation import provenance
from graphcons.core.db import Database
from graphcons.core.errors import NotFound, ValidationError
from graphcons.core.memory import LIVE_STATUSES

KIND_COLOURS = {"episode": "#8fb8de", "observation": "#9ad1c1", "incident": "#f29e8e", "decision": "#c7a4e0",
                "preference": "#f6c971", "fact": "#b5d99c", "insight": "#5b3fa0", "profile": "#1f7a6d"}
HYPOTHESIS = "#a48ad8"  # an insight still a hypothesis: lighter than a supported one
RETIRED = "#c9c9c9"
SIGNAL_COLOURS = {"SIMILAR": "#4a7fc1", "LINKED": "#3c9a5f", "CO_ACCESSED": "#e08a2c", "SUMMARIZES": "#6b4fbb",
                  "DERIVED_FROM": "#3d2a80", "SUPERSEDES": "#c0392b", "CONFLICTS_WITH": "#d4145a"}
MAX_NODES = 300


def _ids_for(db: Database, what: str, target: str, *, depth: int, namespace: str | None) -> list[str]:
    if what == "insight":
        links, nodes = provenance.walk(db, target)
        if not nodes.get(target, {}).get("found"):
            raise NotFound(f"no memory with id {target!r}")
        return sorted({target} | {ln["child"] for ln in links} | {ln["parent"] for ln in links})
    if what == "memory":
        ids = [r["id"] for r in db.run("viz/around", id=target, depth=depth, limit=MAX_NODES)]
        if not ids:
            raise NotFound(f"no memory with id {target!r}")
        return ids
    if what == "subject":
        ids = [r["id"] for r in db.run("viz/subject", subject=target, namespace=namespace, live=LIVE_STATUSES,
                                       limit=MAX_NODES)]
        if not ids:
            raise NotFound(f"no memory with subject {target!r}" + (f" in namespace {namespace!r}" if namespace else ""))
        return ids
    if what == "cluster":
        rows = db.run("viz/cluster", key=target)
        if not rows or not rows[0]["member_ids"]:
            raise NotFound(f"no cluster {target!r} in the synthesis tasks or proposals (run `graphcons consolidate`)")
        return list(rows[0]["member_ids"])
    raise ValidationError("what", f"must be insight, cluster, subject or memory, not {what!r}")


def _node_colour(n: dict[str, Any]) -> str:
    if n.get("status") not in LIVE_STATUSES:
        return RETIRED
    if n.get("kind") == "insight" and n.get("epistemic_status") in (None, "hypothesis"):
        return HYPOTHESIS
    return KIND_COLOURS.get(n.get("kind") or "", "#9aa5b1")


def _width(r: dict[str, Any]) -> float:
    if r["type"] == "SIMILAR":
        return 1 + 6 * max(0.0, float(r.get("score") or 0) - 0.5)
    if r["type"] == "CO_ACCESSED":
        c = float(r.get("count") or 1)
        return 1 + 5 * c / (c + 1)
    return 2.0


def graph(db: Database, what: str, target: str, *, depth: int = 1, namespace: str | None = None
          ) -> tuple[VisualizationGraph, dict[str, int]]:
    """The picture's graph and its counts (nodes, relationships)."""
    if not isinstance(depth, int) or not 0 <= depth <= 5:
        raise ValidationError("depth", "must be an integer between 0 and 5")
    ids = _ids_for(db, what, target, depth=depth, namespace=namespace)
    row = db.run("viz/graph", ids=ids)[0]
    nodes = [Node(id=n["id"], caption=(n.get("title") or n["id"])[:40], color=_node_colour(n),
                  size=30 if n.get("kind") in ("insight", "profile") else 18 + 12 * float(n.get("effective_weight") or 0),
                  properties={k: v for k, v in n.items() if v is not None})
             for n in row["nodes"]]
    rels = [Relationship(source=r["source"], target=r["target"], caption=r["type"].lower() + (f" {r['kind']}" if r.get("kind") else ""),
                         color=RETIRED if r["reverted"] else SIGNAL_COLOURS.get(r["type"], "#888888"), width=_width(r),
                         properties={k: v for k, v in r.items() if v is not None})
            for r in row["rels"]]
    return VisualizationGraph(nodes=nodes, relationships=rels), {"nodes": len(nodes), "relationships": len(rels)}


def write_html(vg: VisualizationGraph, out: str | Path, title: str) -> Path:
    """One self-contained HTML page (the library bundles its renderer: no network needed)."""
    html = vg.render(height="100vh").data
    path = Path(out)
    path.write_text(html.replace("<title>neo4j-viz</title>", f"<title>{escape(title)}</title>", 1))
    return path
