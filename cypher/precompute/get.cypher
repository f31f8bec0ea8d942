// What the response path reads: the inferences stored for each insight id, only while they
// were computed from the insight's current version (an edited insight invalidates them
// until the next precompute run recomputes them).
UNWIND $ids AS id
MATCH (p:Precomputed {insight_id: id})-[:FOR]->(i:Memory {id: id})
WHERE p.insight_version = i.version AND i.status IN $live
RETURN p.insight_id AS insight_id, p.inferences AS inferences, p.insight_version AS version, p.computed_at AS computed_at
ORDER BY insight_id
