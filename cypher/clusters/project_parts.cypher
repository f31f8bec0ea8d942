// Several communities' subgraphs in one projection (issue 15: splitting every oversized
// community of a scan at once). $label maps each member id to its community's label ('P0',
// 'P1', ...); only edges inside one community are kept, with the same weights as
// clusters/project_members, and rows are in the same (a.id, b.id) order, so each label's
// subgraph is the graph project_members builds for that community alone.
UNWIND keys($label) AS id
MATCH (a:Memory {id: id})
OPTIONAL MATCH (a)-[r:SIMILAR|LINKED|CO_ACCESSED]-(b:Memory)
WHERE a.id < b.id AND $label[b.id] = $label[id] AND NOT EXISTS { (a)-[:SUMMARIZES]-(b) }
WITH a, b,
     CASE type(r)
       WHEN 'SIMILAR' THEN CASE WHEN r.score >= $sim_floor THEN $similarity_weight * r.score ELSE 0.0 END
       WHEN 'LINKED' THEN $link_weight * coalesce($link_kind_weights[r.kind], 1.0)
       WHEN 'CO_ACCESSED' THEN $coaccess_weight * toFloat(r.count) / (r.count + $coaccess_k)
       ELSE 0.0
     END AS w
WITH a, b, sum(w) AS weight
ORDER BY a.id, b.id
WITH a, CASE WHEN weight > 0 THEN b ELSE null END AS b, weight
WITH gds.graph.project(
       $graph_name, a, b,
       {sourceNodeLabels: $label[a.id],
        targetNodeLabels: CASE WHEN b IS NULL THEN null ELSE $label[b.id] END,
        relationshipProperties: CASE WHEN b IS NULL THEN null ELSE {weight: weight} END},
       {undirectedRelationshipTypes: ['*']}
     ) AS g
RETURN g.graphName AS graph, g.nodeCount AS nodes, g.relationshipCount AS relationships
