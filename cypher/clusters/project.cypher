// The fused graph (seed 000): one weighted, undirected GDS graph over live memories whose
// edge weight sums three signals, projected server-side with Cypher aggregation.
//   SIMILAR      $similarity_weight * score        (only score >= $sim_floor)
//   LINKED       $link_weight * $link_kind_weights[kind] (1.0 for kinds not listed)
//   CO_ACCESSED  $coaccess_weight * count / (count + $coaccess_k)  (saturates: a heavily
//                used pair cannot drown the other signals)
// Parallel relationships of one pair, in either direction, are summed into one edge. Each edge
// also carries `coaccess`, the pair's CO_ACCESSED count: the gate's salience reads it with the
// projected edges (graphcons.consolidation.figures) instead of walking the store's edges again.
// Left out: memories not in $live (deprecated, archived), pairs across namespaces, and
// pairs where one memory SUMMARIZES the other (an insight and its own members), so that
// insights cluster among insights. Rows reach the projection ordered by (a.id, b.id), so the
// in-memory node order, and with it the algorithms' results, do not depend on storage order.
// (Issue 15: the same rows in the same order as before, cheaper: memories are sorted once and
// each one's few edges inside a subquery, instead of sorting every edge row; the per-pair
// SUMMARIZES check runs only for a memory that has a SUMMARIZES edge at all; `tie` is read.)
MATCH (a:Memory)
WHERE a.status IN $live AND ($namespace IS NULL OR a.namespace = $namespace)
WITH a, EXISTS { (a)-[:SUMMARIZES]-() } AS summarizes
ORDER BY a.id
CALL (a, summarizes) {
  OPTIONAL MATCH (a)-[r:SIMILAR|LINKED|CO_ACCESSED]-(b:Memory)
  WHERE a.id < b.id AND b.status IN $live AND b.namespace = a.namespace
    AND (NOT summarizes OR NOT EXISTS { (a)-[:SUMMARIZES]-(b) })
  WITH b, sum(CASE type(r)
       WHEN 'SIMILAR' THEN CASE WHEN r.score >= $sim_floor THEN $similarity_weight * r.score ELSE 0.0 END
       WHEN 'LINKED' THEN $link_weight * coalesce($link_kind_weights[r.kind], 1.0)
       WHEN 'CO_ACCESSED' THEN $coaccess_weight * toFloat(r.count) / (r.count + $coaccess_k)
       ELSE 0.0
     END) AS weight,
     sum(CASE type(r) WHEN 'CO_ACCESSED' THEN r.count ELSE 0 END) AS coaccess
  ORDER BY b.id
  RETURN b, weight, coaccess
}
// `tie`: the stored tie weight (graphcons.store.tie: 1 + $tie_epsilon * a polynomial hash of
// the id, in [1, 1.001), written at admission). Label propagation weighs each neighbour's vote
// by it, so equal votes are broken by a fixed pseudo-random order instead of "smallest label",
// which floods unweighted graphs with one label. A memory stored without it gets the same
// value computed here (CASE is lazy: the hash only runs for such memories).
WITH a, CASE WHEN weight > 0 THEN b ELSE null END AS b, weight, coaccess
WITH a, b, weight, coaccess,
     CASE WHEN a.tie IS NOT NULL THEN a.tie
          ELSE 1.0 + $tie_epsilon * reduce(h = 0, c IN split(a.id, '') | (h * 131 + coalesce($id_chars[c], 0)) % 1000003) / 1000003.0
     END AS ta,
     CASE WHEN b IS NULL THEN null
          WHEN b.tie IS NOT NULL THEN b.tie
          ELSE 1.0 + $tie_epsilon * reduce(h = 0, c IN split(b.id, '') | (h * 131 + coalesce($id_chars[c], 0)) % 1000003) / 1000003.0
     END AS tb
WITH gds.graph.project(
       $graph_name, a, b,
       {sourceNodeProperties: {tie: ta},
        targetNodeProperties: CASE WHEN b IS NULL THEN null ELSE {tie: tb} END,
        relationshipProperties: CASE WHEN b IS NULL THEN null ELSE {weight: weight, coaccess: toFloat(coaccess)} END},
       {undirectedRelationshipTypes: ['*']}
     ) AS g,
     sum(weight) AS total_weight,
     // With $with_edges, the projected edges themselves as parallel lists (node ids as the detectors
     // stream them): a scan's gate computes its figures from these (graphcons.consolidation.figures),
     // which costs a fraction of streaming them back out of GDS or walking the store again.
     collect(CASE WHEN $with_edges AND b IS NOT NULL THEN id(a) END) AS source,
     collect(CASE WHEN $with_edges AND b IS NOT NULL THEN id(b) END) AS target,
     collect(CASE WHEN $with_edges AND b IS NOT NULL THEN weight END) AS weight,
     collect(CASE WHEN $with_edges AND b IS NOT NULL THEN coaccess END) AS coaccess
RETURN g.graphName AS graph, g.nodeCount AS nodes, g.relationshipCount AS relationships, total_weight,
       source, target, weight, coaccess
