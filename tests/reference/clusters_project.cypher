// The reference fused graph (tests/test_scan_equivalence.py): the definition of
// cypher/clusters/project written the plain, slow way, to compare the fast query against.
//   SIMILAR      $similarity_weight * score        (only score >= $sim_floor)
//   LINKED       $link_weight * $link_kind_weights[kind] (1.0 for kinds not listed)
//   CO_ACCESSED  $coaccess_weight * count / (count + $coaccess_k)
// Parallel relationships of one pair, in either direction, are summed into one undirected edge
// (here in Cypher, per pair). Left out: memories not in $live, pairs across namespaces, pairs
// where one memory SUMMARIZES the other, pairs whose summed weight is not positive.
// Node order: every live memory first, in id order (GDS numbers nodes by first appearance).
// (Before 2026-12-02 the order was the first appearance in rows sorted by (a.id, b.id): a node
// with a smaller-id neighbour came right after that neighbour. The id order is simpler and let
// the projection skip its sort of every edge row.)
// `tie`: 1 + $tie_epsilon * (a polynomial hash of the id, in [0, 1)), always computed here.
CALL () {
  MATCH (a:Memory)
  WHERE a.status IN $live AND ($namespace IS NULL OR a.namespace = $namespace)
  WITH a ORDER BY a.id
  RETURN a, null AS b, null AS weight
  UNION ALL
  MATCH (a:Memory)
  WHERE a.status IN $live AND ($namespace IS NULL OR a.namespace = $namespace)
  MATCH (a)-[r:SIMILAR|LINKED|CO_ACCESSED]-(b:Memory)
  WHERE a.id < b.id AND b.status IN $live AND b.namespace = a.namespace
    AND NOT EXISTS { (a)-[:SUMMARIZES]-(b) }
  WITH a, b,
       sum(CASE type(r)
         WHEN 'SIMILAR' THEN CASE WHEN r.score >= $sim_floor THEN $similarity_weight * r.score ELSE 0.0 END
         WHEN 'LINKED' THEN $link_weight * coalesce($link_kind_weights[r.kind], 1.0)
         WHEN 'CO_ACCESSED' THEN $coaccess_weight * toFloat(r.count) / (r.count + $coaccess_k)
         ELSE 0.0
       END) AS weight
  WHERE weight > 0
  RETURN a, b, weight
}
WITH a, b, weight,
     reduce(h = 0, c IN split(a.id, '') | (h * 131 + coalesce($id_chars[c], 0)) % 1000003) AS ha
WITH gds.graph.project(
       $graph_name, a, b,
       {sourceNodeProperties: CASE WHEN b IS NULL THEN {tie: 1.0 + $tie_epsilon * ha / 1000003.0} END,
        targetNodeProperties: null,
        relationshipProperties: CASE WHEN b IS NULL THEN null ELSE {weight: weight} END},
       {undirectedRelationshipTypes: ['*']}
     ) AS g,
     sum(weight) AS total_weight
RETURN g.graphName AS graph, g.nodeCount AS nodes, g.relationshipCount AS relationships, total_weight
