// The fused graph (seed 000): one weighted, undirected GDS graph over live memories whose
// edge weight sums three signals, projected server-side with Cypher aggregation.
//   SIMILAR      $similarity_weight * score        (only score >= $sim_floor)
//   LINKED       $link_weight * $link_kind_weights[kind] (1.0 for kinds not listed)
//   CO_ACCESSED  $coaccess_weight * count / (count + $coaccess_k)  (saturates: a heavily
//                used pair cannot drown the other signals)
// Left out: memories not in $live (deprecated, archived), pairs across namespaces, and
// pairs where one memory SUMMARIZES the other (an insight and its own members), so that
// insights cluster among insights.
//
// Two passes in one aggregation (issue 15, 2026-12-02), over the live memories sorted once:
// 1. every memory in id order, with its `tie`: GDS numbers nodes by first appearance, so the
//    in-memory node order, and with it the algorithms' results, is the id order whatever the
//    storage order;
// 2. every stored relationship once (from its start memory), as a DIRECTED relationship with
//    its weight: no sort of the edge rows, no per-pair aggregation in Cypher (those cost more
//    than half of the projection at 1M memories). cypher/clusters/undirected then turns them
//    into one undirected edge per pair whose weight is the sum over the pair's relationships in
//    either direction (GDS toUndirected, aggregation SUM) and drops the directed ones. Weights
//    are >= 0 (config), so a pair has a positive sum exactly when one of its relationships
//    weighs > 0: only those are projected.
// `tie`: the stored tie weight (graphcons.store.tie: 1 + $tie_epsilon * a polynomial hash of the
// id, in [1, 1.001), written at admission). Label propagation weighs each neighbour's vote by it,
// so equal votes are broken by a fixed pseudo-random order instead of "smallest label", which
// floods unweighted graphs with one label. A memory stored without it gets the same value
// computed here (CASE is lazy: the hash only runs for such memories). A node keeps the
// properties of its first appearance, so relationship rows carry none.
// With $with_edges the relationship rows also come back as parallel lists (node ids as the
// detectors stream them), with each relationship's co-access count: a scan's gate sums them per
// pair and computes its figures from them (graphcons.consolidation.fusion.Edges, figures), a
// fraction of the cost of walking the store's edges again.
// The memories: an index seek on the namespace when a scan is scoped to one (a predicate
// `$namespace IS NULL OR a.namespace = $namespace` cannot use the index: a 500-memory namespace
// in a store of 1.1M cost 2 s of label scans), on each (namespace, subject) when it is scoped to
// $subjects of it (issue 33: a triggered scan; the caller passes subjects closed under the edges,
// graphcons.consolidation.closure), every memory otherwise. A neighbour outside $subjects (an edge
// admitted after the closure was read) is not projected: the next pass sees it.
CALL () {
  UNWIND CASE WHEN $namespace IS NULL THEN [true] ELSE [] END AS every_namespace
  MATCH (a:Memory)
  RETURN a
  UNION ALL
  UNWIND CASE WHEN $subjects IS NULL THEN [true] ELSE [] END AS whole_namespace
  MATCH (a:Memory {namespace: $namespace})
  RETURN a
  UNION ALL
  UNWIND coalesce($subjects, []) AS subject
  MATCH (a:Memory {namespace: $namespace, subject: subject})
  RETURN a
}
WITH a WHERE a.status IN $live
WITH a ORDER BY a.id
WITH collect(a) AS memories
CALL (memories) {
  UNWIND memories AS a
  RETURN a, null AS b,
         CASE WHEN a.tie IS NOT NULL THEN a.tie
              ELSE 1.0 + $tie_epsilon * reduce(h = 0, c IN split(a.id, '') | (h * 131 + coalesce($id_chars[c], 0)) % 1000003) / 1000003.0
         END AS tie, null AS weight, null AS coaccess
  UNION ALL
  UNWIND memories AS a
  WITH a, EXISTS { (a)-[:SUMMARIZES]-() } AS summarizes
  MATCH (a)-[r:SIMILAR|LINKED|CO_ACCESSED]->(b:Memory)
  WHERE b.status IN $live AND b.namespace = a.namespace AND b <> a
    AND ($subjects IS NULL OR b.subject IN $subjects)
    AND (NOT summarizes OR NOT EXISTS { (a)-[:SUMMARIZES]-(b) })
  WITH a, b, r, CASE type(r)
       WHEN 'SIMILAR' THEN CASE WHEN r.score >= $sim_floor THEN $similarity_weight * r.score ELSE 0.0 END
       WHEN 'LINKED' THEN $link_weight * coalesce($link_kind_weights[r.kind], 1.0)
       WHEN 'CO_ACCESSED' THEN $coaccess_weight * toFloat(r.count) / (r.count + $coaccess_k)
       ELSE 0.0
     END AS weight
  WHERE weight > 0
  RETURN a, b, null AS tie, weight, toFloat(CASE type(r) WHEN 'CO_ACCESSED' THEN r.count ELSE 0 END) AS coaccess
}
WITH gds.graph.project(
       $graph_name, a, b,
       {sourceNodeProperties: CASE WHEN b IS NULL THEN {tie: tie} END,
        targetNodeProperties: null,
        relationshipProperties: CASE WHEN b IS NULL THEN null ELSE {weight: weight} END}
     ) AS g,
     sum(weight) AS total_weight,
     collect(CASE WHEN $with_edges AND b IS NOT NULL THEN id(a) END) AS source,
     collect(CASE WHEN $with_edges AND b IS NOT NULL THEN id(b) END) AS target,
     collect(CASE WHEN $with_edges AND b IS NOT NULL THEN weight END) AS weight,
     collect(CASE WHEN $with_edges AND b IS NOT NULL THEN coaccess END) AS coaccess
RETURN g.graphName AS graph, g.nodeCount AS nodes, g.relationshipCount AS relationships, total_weight,
       source, target, weight, coaccess
