// The fused graph restricted to the members of one community (issue 12: splitting an
// oversized community): the same weights as clusters/project, only edges between members.
// $members is a map {memory id: true}, so membership is one lookup per edge.
UNWIND $ids AS id
MATCH (a:Memory {id: id})
OPTIONAL MATCH (a)-[r:SIMILAR|LINKED|CO_ACCESSED]-(b:Memory)
WHERE a.id < b.id AND $members[b.id] IS NOT NULL AND NOT EXISTS { (a)-[:SUMMARIZES]-(b) }
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
       {relationshipProperties: CASE WHEN b IS NULL THEN null ELSE {weight: weight} END},
       {undirectedRelationshipTypes: ['*']}
     ) AS g,
     sum(weight) AS total_weight
RETURN g.graphName AS graph, g.nodeCount AS nodes, g.relationshipCount AS relationships, total_weight
