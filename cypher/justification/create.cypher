// One justification of an insight (seed 002), with its exact premises: each a memory at the
// version it rests on and whether it is required. Creating the same one twice is a no-op.
MATCH (i:Memory {id: $insight_id})
MERGE (j:Justification {id: $id})
  ON CREATE SET j += $props, j.insight_id = $insight_id, j.status = 'standing', j.created_at = $now
MERGE (j)-[:JUSTIFIES]->(i)
WITH j
CALL (j) {
  UNWIND $premises AS p
  MATCH (m:Memory {id: p.id})
  MERGE (j)-[r:PREMISE]->(m)
    ON CREATE SET r.version = p.version, r.required = p.required, r.status = 'holding', r.at = $now
  RETURN count(r) AS premises
}
RETURN j.id AS id, j.status AS status, premises
