// Sleep-time precompute (seed 001): inferences stored per insight id, computed off the
// response path. One (:Precomputed) node per insight, replaced when recomputed.
UNWIND $items AS item
MATCH (i:Memory {id: item.insight_id})
MERGE (p:Precomputed {insight_id: item.insight_id})
SET p.inferences = item.inferences, p.insight_version = item.version, p.computed_at = $now, p.run_id = $run_id
MERGE (p)-[:FOR]->(i)
RETURN count(p) AS stored
