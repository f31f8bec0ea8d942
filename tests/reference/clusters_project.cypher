// The fused graph (seed 000): one weighted, undirected GDS graph over live memories whose
// edge weight sums three signals, projected server-side with Cypher aggregation.
//   SIMILAR      $similarity_weight * score        (only score >= $sim_floor)
//   LINKED       $link_weight * $link_kind_weights[kind] (1.0 for kinds not listed)
//   CO_ACCESSED  $coaccess_weight * count / (count + $coaccess_k)  (saturates: a heavily
//                used pair cannot drown the other signals)
// Parallel relationships of one pair, in either direction, are summed into one edge.
// Left out: memories not in $live (deprecated, archived), pairs across namespaces, and
// pairs where one memory SUMMARIZES the other (an insight and its own members), so that
// insights cluster among insights. Rows are ordered by id before projection so the
// in-memory node order, and with it the algorithms' results, do not depend on storage order.
MATCH (a:Memory)
WHERE a.status IN $live AND ($namespace IS NULL OR a.namespace = $namespace)
OPTIONAL MATCH (a)-[r:SIMILAR|LINKED|CO_ACCESSED]-(b:Memory)
WHERE a.id < b.id AND b.status IN $live AND b.namespace = a.namespace
  AND NOT EXISTS { (a)-[:SUMMARIZES]-(b) }
WITH a, b,
     CASE type(r)
       WHEN 'SIMILAR' THEN CASE WHEN r.score >= $sim_floor THEN $similarity_weight * r.score ELSE 0.0 END
       WHEN 'LINKED' THEN $link_weight * coalesce($link_kind_weights[r.kind], 1.0)
       WHEN 'CO_ACCESSED' THEN $coaccess_weight * toFloat(r.count) / (r.count + $coaccess_k)
       ELSE 0.0
     END AS w
WITH a, b, sum(w) AS weight
ORDER BY a.id, b.id
// `tie`: 1 + $tie_epsilon * (a polynomial hash of the id, in [0, 1)). Label propagation
// weighs each neighbour's vote by it, so equal votes are broken by a fixed pseudo-random
// order instead of "smallest label", which floods unweighted graphs with one label.
WITH a, CASE WHEN weight > 0 THEN b ELSE null END AS b, weight,
     reduce(h = 0, c IN split(a.id, '') | (h * 131 + coalesce($id_chars[c], 0)) % 1000003) AS ha
WITH a, b, weight, ha,
     CASE WHEN b IS NULL THEN 0
          ELSE reduce(h = 0, c IN split(b.id, '') | (h * 131 + coalesce($id_chars[c], 0)) % 1000003) END AS hb
WITH gds.graph.project(
       $graph_name, a, b,
       {sourceNodeProperties: {tie: 1.0 + $tie_epsilon * ha / 1000003.0},
        targetNodeProperties: CASE WHEN b IS NULL THEN null ELSE {tie: 1.0 + $tie_epsilon * hb / 1000003.0} END,
        relationshipProperties: CASE WHEN b IS NULL THEN null ELSE {weight: weight} END},
       {undirectedRelationshipTypes: ['*']}
     ) AS g,
     sum(weight) AS total_weight
RETURN g.graphName AS graph, g.nodeCount AS nodes, g.relationshipCount AS relationships, total_weight
