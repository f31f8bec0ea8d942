"""The house in floors: every import in graphcons/ points to its own part or a lower floor, never
sideways to another part of the same floor, and no module reaches itself through a chain of imports
(function-local imports included, so a cycle cannot hide inside a function). Pure AST; no server needed.

    core <- store <- consolidation | maintenance | recall <- profiles <- review | jobs
         <- api | viz | scenarios | llm_check <- access <- service | mcp | integrations | battery <- cli
         <- graphcons, __main__

A query is named by its file (cypher/<folder>/<name>.cypher), so it ties too: a wing runs only its own
folders' queries and the shared ones of the floors below (`test_no_wing_runs_another_wings_cypher`).
"""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "graphcons"

# The floor of each top-level part of the package (docs/DEVELOPING.md). Parts that share a floor
# never import each other: consolidation, maintenance and recall meet only in profiles, review and above;
# profiles stand on the insight pipeline's providers and checks (consolidation), never on maintenance or
# recall (APART); the HTTP service and the MCP server both stand on the facade (api) and the shared
# rights (access); the command line, which starts either server, stands above both.
LAYERS = {"core": 0, "store": 1, "consolidation": 2, "maintenance": 2, "recall": 2,
          "profiles": 3,
          "review": 4, "jobs": 4,
          "api": 5, "viz": 5, "scenarios": 5, "llm_check": 5,
          "access": 6,
          "service": 7, "mcp": 7, "integrations": 7, "battery": 7,
          "cli": 8,
          "__init__": 9, "__main__": 9}
# Below a part's floor, yet never imported by it.
APART = {"profiles": {"maintenance", "recall"}}


def _module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Every graphcons module this file imports, resolved to a module that exists."""
    tree = ast.parse(path.read_text(), filename=str(path))
    me = _module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("graphcons"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if not mod.startswith("graphcons"):
                continue
            for alias in node.names:  # `from pkg import module` imports the module
                sub = f"{mod}.{alias.name}"
                found.add(sub if _exists(sub) else mod)
    return {m for m in found if m != me}


def _exists(mod: str) -> bool:
    rel = Path(*mod.split("."))
    return (PKG.parent / rel).with_suffix(".py").is_file() or (PKG.parent / rel / "__init__.py").is_file()


def _part(mod: str) -> str:
    parts = mod.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _graph() -> dict[str, set[str]]:
    return {_module_name(p): _imports(p) for p in sorted(PKG.rglob("*.py"))}


def test_every_part_has_a_layer():
    parts = {_part(m) for m in _graph()}
    assert parts <= LAYERS.keys(), f"parts with no layer (add them to LAYERS and docs/DEVELOPING.md): {parts - LAYERS.keys()}"


def test_no_upward_or_sideways_import():
    bad = []
    for mod, deps in _graph().items():
        for dep in deps:
            a, b = _part(mod), _part(dep)
            if a == b:
                continue
            if LAYERS[b] >= LAYERS[a] or b in APART.get(a, ()):  # up, sideways, or a part kept apart
                bad.append(f"{mod} -> {dep}")
    assert not bad, "imports against the layers:\n" + "\n".join(sorted(bad))


def test_no_import_cycle():
    graph = _graph()
    # a package's __init__ importing its own modules is a re-export, not a dependency loop
    edges = {m: {d for d in deps if not (m.endswith("__init__") or d.startswith(m + "."))} for m, deps in graph.items()}
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for dep in sorted(edges.get(node, ())):
            if dep not in edges:
                continue
            if state.get(dep) == 1:
                cycles.append(stack[stack.index(dep):] + [dep] if dep in stack else [node, dep])
            elif dep not in state:
                visit(dep, stack + [dep])
        state[node] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m, [m])
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_checker_sees_a_function_local_upward_import(tmp_path):
    # The rule must catch what the old code hid: an import inside a function body.
    src = tmp_path / "x.py"
    src.write_text("def f():\n    from graphcons.review import queue\n    return queue\n")
    tree = ast.parse(src.read_text())
    mods = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert mods == ["graphcons.review"]


MAX_FUNCTION_LINES = 80  # issue 46: a function longer than a screen hides more than one concept


def test_no_function_over_80_lines():
    long = []
    for path in sorted(PKG.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(PKG.parent)}:{node.lineno} {node.name} ({n} lines)")
    assert not long, "functions over 80 lines:\n" + "\n".join(long)


# -- queries tie by name too ----------------------------------------------------------------------
CYPHER = PKG.parent / "cypher"
# The part whose concept each cypher/ folder holds. A part runs its own folders' queries and those of
# a lower floor; a wing (the passes: consolidation, maintenance, recall, profiles) never runs another
# wing's, even one below it: what two wings share lives in a folder of the floors beneath them.
FOLDERS = {
    "admin": "core", "audit": "core",
    "access": "store", "activation": "store", "eventtime": "store", "jobs": "store", "justification": "store",
    "keys": "store", "memory": "store", "metrics": "store", "proposals": "store", "schema": "store", "similar": "store",
    "store": "store", "tokens": "store",
    "clusters": "consolidation", "epistemics": "consolidation", "gate": "consolidation", "insights": "consolidation",
    "precompute": "consolidation", "provenance": "consolidation", "synthesis": "consolidation",
    "deprecation": "maintenance", "feedback": "maintenance", "health": "maintenance", "merge": "maintenance",
    "promotion": "maintenance", "updates": "maintenance", "weights": "maintenance",
    "retrieval": "recall",
    "cards": "profiles", "profile": "profiles", "reflection": "profiles",
    "battery": "battery", "viz": "viz",
}
WINGS = {"consolidation", "maintenance", "recall", "profiles"}
# Ties that stand today, each with its mend; none may be added (issue 60 item 5).
KNOWN_TIES = {
    ("graphcons.store.schema", "health"): "the index probes init reads: into a store folder",
    ("graphcons.recall.context", "cards"): "recall reads the cards profiles store: cards/for_query into recall's",
    ("graphcons.recall.lists", "clusters"): "recall drops its PPR graph by clusters/drop_graph: one shared GDS drop",
}


def _queries(path: Path) -> set[str]:
    """The cypher/ files a module runs by name: any call's first argument naming one ("area/name")."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            name = node.args[0].value
            if isinstance(name, str) and name.count("/") == 1 and (CYPHER / f"{name}.cypher").is_file():
                found.add(name)
    return found


def test_every_cypher_folder_has_an_owner():
    folders = {p.name for p in CYPHER.iterdir() if p.is_dir()}
    assert folders <= FOLDERS.keys(), f"cypher/ folders with no owner (add them to FOLDERS): {folders - FOLDERS.keys()}"


def test_no_wing_runs_another_wings_cypher():
    bad = []
    for path in sorted(PKG.rglob("*.py")):
        mod = _module_name(path)
        part = _part(mod)
        for query in sorted(_queries(path)):
            folder = query.split("/")[0]
            owner = FOLDERS[folder]
            if owner == part or (mod, folder) in KNOWN_TIES:
                continue
            if LAYERS[owner] >= LAYERS[part] or (part in WINGS and owner in WINGS):
                bad.append(f"{mod} runs {query} ({owner}'s)")
    assert not bad, "queries run across the layers or between wings:\n" + "\n".join(bad)


def test_the_known_ties_still_stand():
    # a mended tie leaves the list, so the list never hides a new one
    stale = [f"{mod} no longer runs {folder}/" for (mod, folder) in KNOWN_TIES
             if not any(q.split("/")[0] == folder for q in _queries(PKG.parent / (mod.replace(".", "/") + ".py")))]
    assert not stale, "\n".join(stale)
