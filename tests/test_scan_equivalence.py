"""The faster scan (issue 15) computes exactly what today's queries computed, on the real server.

A seeded random graph (namespaces, retired memories, SIMILAR scores on both sides of the
floor, LINKED kinds with their own weights, CO_ACCESSED counts, insights with SUMMARIZES, some
memories stored without the tie weight) is built directly in Neo4j. Then:
- the projection's GDS graph (node order, each node's tie, every edge and its weight) is the
  one built by the reference query (tests/reference/clusters_project.cypher, the definition
  written the plain way: each pair summed in Cypher), bit for bit, its nodes are in id order,
  and the clusters both detectors find on it are the same;
- the gate's one-pass figures, read from the store (gate/figures_parts, gate/insight_members) or
  computed from the projected edges (figures.from_projection, what a scan uses), equal the
  reference per-cluster figures (tests/reference/gate_figures.cypher) for every part, and the
  scan's decisions are the same whether the members come from detection or from gate/members,
  and whether the figures come from the projection or from the store;
- splitting all oversized communities from one projection gives each the parts its own
  projection gives;
- the stored tie weight (written at admission, backfilled by init) equals the Cypher formula.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

from graphcons.consolidation import communities, figures, fusion, gate as gating, split as splitting
from graphcons.consolidation.cluster import Cluster
from graphcons.store import tie

REFERENCE = Path(__file__).resolve().parent / "reference"
NAMESPACES = ["default", "team-b"]


def _random_graph(g, seed: int = 15, n: int = 240) -> list[str]:
    rng = random.Random(seed)
    ids = [f"rnd-{rng.randrange(10**6):06d}-{i:03d}" for i in range(n)]
    rng.shuffle(ids)  # creation order differs from id order
    rows = []
    for i, mid in enumerate(ids):
        rows.append({"id": mid, "namespace": NAMESPACES[i % 7 == 0], "subject": rng.choice(["ops", "billing", None]),
                     "scope": rng.choice(["team", "team", "personal"]),
                     "status": rng.choice(["active"] * 12 + ["deprecated", "archived"]),
                     "kind": "insight" if i % 23 == 0 else "fact", "access": rng.randrange(5),
                     "activation": rng.choice([None, 0.0, rng.random()]),
                     # Two memories in three carry the stored tie; the rest take the projection's fallback.
                     "tie": tie.weight(mid) if i % 3 else None})
    g.db.run_text("UNWIND $rows AS r CREATE (m:Memory {id: r.id, namespace: r.namespace, subject: r.subject, "
                  "scope: r.scope, status: r.status, kind: r.kind, title: 'title ' + r.id, access_count: r.access, "
                  "activation: r.activation, version: 1, tie: r.tie})", rows=rows)
    # Planted groups of 4-12 (some larger than max_size once joined), plus random edges anywhere.
    pairs = []
    order = ids[:]
    rng.shuffle(order)
    pos = 0
    while pos < len(order):
        size = rng.randint(4, 12)
        group = order[pos:pos + size]
        pos += size
        for x in range(len(group)):
            for y in range(x + 1, len(group)):
                if rng.random() < 0.6:
                    pairs.append((group[x], group[y]))
    pairs += [(rng.choice(ids), rng.choice(ids)) for _ in range(n)]
    sim, link, co = [], [], []
    for a, b in pairs:
        if a == b:
            continue
        if rng.random() < 0.5:
            a, b = b, a  # both directions occur
        kind = rng.random()
        if kind < 0.45:
            sim.append({"a": a, "b": b, "v": round(rng.uniform(0.7, 0.99), 6)})
        elif kind < 0.75:
            link.append({"a": a, "b": b, "kind": rng.choice(["related", "caused_by", "same_root_cause"])})
        else:
            lo, hi = min(a, b), max(a, b)
            co.append({"a": lo, "b": hi, "v": rng.randint(1, 6)})
    g.db.run_text("UNWIND $rows AS r MATCH (a:Memory {id: r.a}), (b:Memory {id: r.b}) "
                  "CREATE (a)-[:SIMILAR {score: r.v}]->(b)", rows=sim)
    g.db.run_text("UNWIND $rows AS r MATCH (a:Memory {id: r.a}), (b:Memory {id: r.b}) "
                  "CREATE (a)-[:LINKED {kind: r.kind}]->(b)", rows=link)
    g.db.run_text("UNWIND $rows AS r MATCH (a:Memory {id: r.a}), (b:Memory {id: r.b}) "
                  "MERGE (a)-[c:CO_ACCESSED]->(b) ON CREATE SET c.count = r.v ON MATCH SET c.count = c.count + r.v",
                  rows=co)
    insights = [m for i, m in enumerate(ids) if i % 23 == 0]
    summ = [{"i": i, "m": m} for i in insights for m in rng.sample(ids, 6) if m != i]
    g.db.run_text("UNWIND $rows AS r MATCH (i:Memory {id: r.i}), (m:Memory {id: r.m}) "
                  "CREATE (i)-[:SUMMARIZES {version: 1}]->(m)", rows=summ)
    return ids


def _graph(g, name: str) -> tuple[list, list]:
    nodes = g.db.run_text("CALL gds.graph.nodeProperty.stream($g, 'tie', ['*'], {concurrency: 1}) "
                          "YIELD nodeId, propertyValue RETURN nodeId, propertyValue", g=name)
    rels = g.db.run_text("CALL gds.graph.relationshipProperty.stream($g, 'weight', ['*'], {concurrency: 1}) "
                         "YIELD sourceNodeId, targetNodeId, propertyValue "
                         "RETURN sourceNodeId, targetNodeId, propertyValue", g=name)
    return ([(r["nodeId"], r["propertyValue"]) for r in nodes],
            [(r["sourceNodeId"], r["targetNodeId"], r["propertyValue"]) for r in rels])


def _reference_projection(g, cc, name: str, namespace=None) -> None:
    g.db.run_text((REFERENCE / "clusters_project.cypher").read_text(), graph_name=name, namespace=namespace,
                  **tie.params(), **fusion.weight_params(cc))


def test_projection_and_clusters_equal_the_reference_on_a_random_graph(g):
    ids = _random_graph(g)
    cc = g.config.consolidation
    cc.link_kind_weights = {"caused_by": 0.5, "same_root_cause": 1.5}
    for namespace in (None, "team-b"):
        new, ref = fusion.new_graph_name("eq-new"), fusion.new_graph_name("eq-ref")
        proj = fusion.project(g.db, cc, new, namespace=namespace)
        _reference_projection(g, cc, ref, namespace)
        try:
            got, want = _graph(g, new), _graph(g, ref)
            assert len(got[0]) == proj.nodes > 20 and len(got[1]) > 20
            assert got == want  # same node order, same ties, same edges with the same weights
            # The in-memory node order is the id order, whatever order the memories were created in.
            id_of = {r["node"]: r["id"] for r in g.db.run_text("MATCH (m:Memory) RETURN id(m) AS node, m.id AS id")}
            order = [id_of[n] for n, _tie in got[0]]
            assert order == sorted(order) and order != sorted(order, key=lambda m: ids.index(m))
            for algo in ("label_propagation", "leiden"):
                det = communities.make_detector(cc, algo)
                ref_proj = fusion.Projection(ref, proj.nodes, proj.relationships, proj.total_weight)
                assert det.detect(g.db, proj) == det.detect(g.db, ref_proj)
        finally:
            fusion.drop(g.db, new)
            fusion.drop(g.db, ref)


def _reference_figures(g, parts, params) -> dict:
    rows = g.db.run_text((REFERENCE / "gate_figures.cypher").read_text(),
                         clusters=[{"key": str(i), "ids": sorted(p)} for i, p in enumerate(parts)], **params)
    return {int(r["key"]): r for r in rows}


def _assert_same_figures(got: dict, want: dict, parts) -> None:
    for i in range(len(parts)):
        # The reference sums floats in whatever order the server expands relationships (it can differ
        # by one ulp between runs); the one-pass figures sum in a fixed order. Counts must be equal.
        assert math.isclose(got[i]["weight_sum"], want[i]["weight_sum"], rel_tol=1e-12, abs_tol=1e-12), (i, parts[i])
        for field in ("edges", "coaccess", "insight", "covered"):
            assert got[i][field] == want[i][field], (i, field, parts[i])


def test_one_pass_gate_figures_equal_the_per_cluster_reference(g):
    ids = _random_graph(g, seed=7)
    cc = g.config.consolidation
    cc.max_size = 8  # some communities get split
    cc.link_kind_weights = {"caused_by": 0.5, "same_root_cause": 1.5}
    name = fusion.new_graph_name("eq-gate")
    proj = fusion.project(g.db, cc, name, with_edges=True)
    edges = proj.edges
    try:
        clusters, members = communities.make_detector(cc, "label_propagation").detect_members(g.db, proj)
    finally:
        fusion.drop(g.db, name)
    # Disjoint parts: the detected clusters, then every remaining memory in random groups.
    rng = random.Random(3)
    rest = sorted(set(ids) - {m for c in clusters for m in c.member_ids})
    rng.shuffle(rest)
    parts = [c.member_ids for c in clusters] + [tuple(rest[i:i + 5]) for i in range(0, len(rest), 5)]
    params = fusion.weight_params(cc)
    want = _reference_figures(g, parts, params)
    assert sum(1 for r in want.values() if r["insight"]) >= 3 and sum(1 for r in want.values() if r["edges"]) >= 10
    _assert_same_figures(figures.from_store(g.db, parts, params, NAMESPACES), want, parts)

    # From the projection's edges: the parts a scan gates are projected memories of one namespace
    # (live; scope parts never mix namespaces), so the rest is grouped by namespace here.
    node = {r["id"]: r["node"] for r in g.db.run_text(
        "MATCH (m:Memory) WHERE m.status IN $live RETURN m.id AS id, m.namespace AS ns, id(m) AS node",
        live=params["live"])}
    ns = {r["id"]: r["ns"] for r in g.db.run_text("MATCH (m:Memory) RETURN m.id AS id, m.namespace AS ns")}
    live_rest = [m for m in rest if m in node]
    scanned = [c.member_ids for c in clusters] + [
        tuple(grp[i:i + 5]) for space in NAMESPACES for grp in [[m for m in live_rest if ns[m] == space]]
        for i in range(0, len(grp), 5)]
    assert len(edges) > 20 and all(members[m]["node"] == node[m] for c in clusters for m in c.member_ids)
    want = _reference_figures(g, scanned, params)
    assert sum(1 for r in want.values() if r["coaccess"]) >= 5 and sum(1 for r in want.values() if r["edges"]) >= 10
    got = figures.from_projection(g.db, edges, scanned, [node[m] for p in scanned for m in p], params["live"],
                                 NAMESPACES)
    _assert_same_figures(got, want, scanned)

    # The whole gate: members from detection or read by the gate, same decisions and figures.
    scoped = [Cluster(member_ids=c.member_ids, namespace=c.namespace, subject=c.subject) for c in clusters]
    with_members = [d.to_dict() for d in gating.gate(g.db, cc, scoped, members=members)]
    without = [d.to_dict() for d in gating.gate(g.db, cc, scoped)]
    from_edges = [d.to_dict() for d in gating.gate(g.db, cc, scoped, members=members, edges=edges)]
    assert with_members == without
    for a, b in zip(from_edges, without, strict=True):  # figures are rounded to 4 places: equal
        assert a == b
    # With co-access weighing nothing, a co-accessed pair may be missing from the projection while
    # its count still makes salience: the gate reads such figures from the store.
    cc.coaccess_weight = 0.0
    assert not figures.projection_exact(cc)
    assert [d.to_dict() for d in gating.gate(g.db, cc, scoped, members=members, edges=edges)] == \
        [d.to_dict() for d in gating.gate(g.db, cc, scoped)]
    cc.coaccess_weight = 1.0
    assert any(d["accepted"] for d in without) and any("size" in d["rejected_by"] for d in without)

    # Splitting every oversized community from one projection gives each the parts its own gives.
    big = [c for c in clusters if c.size > cc.max_size]
    assert len(big) >= 2
    together = splitting.split_many(g.db, cc, big)
    for c in big:
        alone = splitting.split(g.db, cc, c)
        assert (together[c.key].parts, together[c.key].gamma, together[c.key].level) == \
            (alone.parts, alone.gamma, alone.level)


def test_the_stored_tie_weight_equals_the_cypher_formula(g):
    a = g.add({"content": "The staging cluster runs on spot instances.", "subject": "ops"}).id
    odd = "id-ü-\U0001F600-x"  # characters outside ID_CHARS, one outside the BMP
    g.db.run_text("CREATE (:Memory {id: $id, status: 'active', namespace: 'default'})", id=odd)
    assert g.db.run_text("MATCH (m:Memory {id: $id}) RETURN m.tie AS t", id=a)[0]["t"] == tie.weight(a)
    assert tie.backfill(g.db) == 1
    rows = g.db.run_text(
        "MATCH (m:Memory) RETURN m.id AS id, m.tie AS stored, 1.0 + $tie_epsilon * reduce(h = 0, c IN split(m.id, '') "
        "| (h * 131 + coalesce($id_chars[c], 0)) % 1000003) / 1000003.0 AS cypher", **tie.params())
    assert len(rows) == 2
    for r in rows:
        assert r["stored"] == r["cypher"] == tie.weight(r["id"]) and 1.0 <= r["stored"] < 1.001
    assert tie.backfill(g.db) == 0
