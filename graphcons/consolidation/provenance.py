"""Provenance you can ask about: "how do you know X?" (seed 001, seed 000).

`explain(db, id)` walks SUMMARIZES and DERIVED_FROM down from a memory to the source
episodes (insights over insights included) and returns a tree with each memory's kind,
sources, dates and status, plus the flat list of source episodes; and, when updates link it
(issue 51), the update chain (`updates`: what superseded it, what it superseded). The walk's queries are
the ones in cypher/provenance/, which also paste straight into the Neo4j Browser.

A provenance link that points at nothing raises DanglingProvenance: an insight records the
ids it summarises and derives from; an id with no memory, an id with no link, or a link to a
version that has no snapshot means the chain is broken (graphcons never deletes, so this
only happens when something outside it removed data) and the answer cannot be trusted.
"""

from __future__ import annotations

from typing import Any

from graphcons.core.db import Database
from graphcons.core.errors import DanglingProvenance, NotFound
from graphcons.store import justification, keys

MAX_DEPTH = 8


def walk(db: Database, mem_id: str) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """(links, nodes) of the provenance below `mem_id`, as stored."""
    links = db.run("provenance/walk", id=mem_id)
    ids = {mem_id} | {ln["child"] for ln in links} | {ln["parent"] for ln in links}
    recorded: set[str] = set()
    nodes: dict[str, dict[str, Any]] = {}
    rows = db.run("provenance/nodes", ids=sorted(ids))
    for r in rows:
        if r["found"]:
            recorded |= set(r["summarizes"] or []) | set(r["derived_from"] or [])
    extra = sorted(recorded - ids)
    if extra:
        rows += db.run("provenance/nodes", ids=extra)
    for r in rows:
        nodes[r["id"]] = dict(r)
    return links, nodes


def check(root: str, links: list[dict[str, Any]], nodes: dict[str, dict[str, Any]]) -> None:
    """Raise DanglingProvenance if any recorded or linked provenance points at nothing."""
    linked: dict[str, set[str]] = {}
    for ln in links:
        linked.setdefault(ln["parent"], set()).add(ln["child"])
        child = nodes.get(ln["child"])
        if child is None or not child.get("found"):
            raise DanglingProvenance(f"{ln['parent']} -[{ln['type']}]-> {ln['child']}: the linked memory does not exist")
        if ln["type"] == "SUMMARIZES" and ln.get("version_exists") is False:
            raise DanglingProvenance(f"{ln['parent']} summarises version {ln['version']} of {ln['child']}, "
                                     "but that version is not in its history")
    for nid, node in sorted(nodes.items()):
        if not node.get("found") or nid not in linked and node.get("kind") != "insight":
            continue
        for field in ("summarizes", "derived_from"):
            for target in node.get(field) or []:
                target_node = nodes.get(target)
                if target_node is None or not target_node.get("found"):
                    raise DanglingProvenance(f"{nid} records provenance {field} -> {target}, but no memory "
                                             f"{target!r} exists: the chain is broken (see cypher/provenance/dangling.cypher)")
                if target not in linked.get(nid, set()):
                    raise DanglingProvenance(f"{nid} records provenance {field} -> {target}, but has no link to it")
    if root in nodes and not nodes[root].get("found"):
        raise NotFound(f"no memory with id {root!r}")


def _describe(node: dict[str, Any]) -> dict[str, Any]:
    created = node.get("created_at")
    return {"id": node["id"], "kind": node.get("kind"), "title": node.get("title"), "status": node.get("status"),
            "epistemic_status": node.get("epistemic_status"), "subject": node.get("subject"),
            "sources": list(node.get("sources") or ([node["source"]] if node.get("source") else [])),
            "created_at": created.isoformat() if hasattr(created, "isoformat") else created,
            "version": node.get("version")}


def build(root: str, links: list[dict[str, Any]], nodes: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The explain tree and the flat list of source episodes (leaves), from a checked walk."""
    check(root, links, nodes)
    children: dict[str, dict[str, dict[str, Any]]] = {}
    for ln in links:
        entry = children.setdefault(ln["parent"], {}).setdefault(ln["child"], {"relations": [], "version": None,
                                                                               "reverted": False})
        entry["relations"].append(ln["type"])
        if ln["type"] == "SUMMARIZES":
            entry["version"] = ln["version"]
        if ln.get("reverted_at") is not None:
            entry["reverted"] = True
    leaves: dict[str, dict[str, Any]] = {}

    def node_tree(nid: str, path: tuple[str, ...]) -> dict[str, Any]:
        out = _describe(nodes[nid])
        kids = []
        for cid, link in sorted(children.get(nid, {}).items()):
            if cid in path:  # a cycle cannot be built by graphcons; never loop on one
                continue
            child = node_tree(cid, path + (cid,))
            child["link"] = {"relations": sorted(link["relations"]), "cited": "DERIVED_FROM" in link["relations"],
                             "summarized_version": link["version"], "reverted": link["reverted"]}
            kids.append(child)
        out["children"] = kids
        if not kids:
            leaves[nid] = _describe(nodes[nid])
        return out

    tree = node_tree(root, (root,))
    sources = sorted(leaves.values(), key=lambda n: (n["created_at"] or "", n["id"]))
    return {"id": root, "tree": tree, "sources": sources, "links": len(links)}


def explain(db: Database, mem_id: str) -> dict[str, Any]:
    rows = db.run("memory/get", id=mem_id)
    if not rows:
        raise NotFound(f"no memory with id {mem_id!r}")
    links, nodes = walk(db, mem_id)
    out = build(mem_id, links, nodes)
    out["summarized_by"] = db.run("provenance/above", id=mem_id)
    chain = db.run("provenance/updates", id=mem_id)[0]  # issue 51: the older value stays, linked to the newer
    if chain["superseded_by"] or chain["supersedes"]:
        out["updates"] = {k: sorted(chain[k], key=lambda u: (str(u["since"]), u["id"]))
                          for k in ("superseded_by", "supersedes")}
    if found_by := keys.of(db, mem_id):  # issue 61: the sentences it is also found by, with their pass
        out["keys"] = found_by
    ep = justification.view(db, mem_id)
    if ep and ep["epistemic_status"]:  # an insight: its status, justifications and exceptions (seed 002)
        out["epistemics"] = ep
    return out
