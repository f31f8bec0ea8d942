// Graph-aware recall by personalised PageRank ([retrieval] graph_method = "ppr", issue 28): one
// query's projection of the scope ($namespace / $subject, null = any): its live memories and the
// edges consolidation maintains among them, undirected, each weighted as retrieval/spread weighs
// it ($kinds per type x strength: SIMILAR its score (under $sim_floor: none), LINKED the kind's
// weight, CO_ACCESSED count / (count + $coaccess_k), SUMMARIZES 1). Edges to another namespace or
// subject, and reverted ones, are left out: no other scope's memory is a node. Dropped by the
// caller after ppr_stream.
CALL () {
  UNWIND CASE WHEN $namespace IS NULL THEN [true] ELSE [] END AS any_namespace
  MATCH (a:Memory)
  RETURN a
  UNION ALL
  MATCH (a:Memory {namespace: $namespace})
  RETURN a
}
WITH a WHERE a.status IN $live AND ($subject IS NULL OR a.subject = $subject)
OPTIONAL MATCH (a)-[r:SIMILAR|LINKED|CO_ACCESSED|SUMMARIZES]->(b:Memory)
WHERE b.status IN $live AND b.namespace = a.namespace AND ($subject IS NULL OR b.subject = $subject)
  AND NOT coalesce(r.reverted, false) AND r.reverted_at IS NULL
WITH a, b, CASE WHEN r IS NULL THEN 0.0 ELSE coalesce($kinds[type(r)], 0.0) * CASE type(r)
       WHEN 'SIMILAR' THEN CASE WHEN r.score >= $sim_floor THEN toFloat(r.score) ELSE 0.0 END
       WHEN 'LINKED' THEN coalesce($link_kinds[r.kind], 1.0)
       WHEN 'CO_ACCESSED' THEN toFloat(r.count) / (r.count + $coaccess_k)
       ELSE 1.0 END END AS weight
WITH a, CASE WHEN weight > 0 THEN b END AS b, weight
WITH gds.graph.project($graph_name, a, b,
       {relationshipProperties: CASE WHEN b IS NULL THEN null ELSE {weight: weight} END},
       {undirectedRelationshipTypes: ['*']}) AS g
RETURN g.graphName AS graph, g.nodeCount AS nodes, g.relationshipCount AS relationships
