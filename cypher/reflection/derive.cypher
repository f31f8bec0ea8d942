// Approval of a reflection, inside its transaction: DERIVED_FROM from each statement's
// semantic memory to the memories it cites (a confirmed entry gains the new ones), the
// proposal's CREATED / CONFIRMED edge, and the memory's derived_from / source_count
// recomputed from its live DERIVED_FROM edges.
MATCH (p:Proposal {id: $proposal_id})
UNWIND $rows AS row
MATCH (s:Memory {id: row.id})
CALL (s, row) {
  UNWIND row.cited AS c
  MATCH (m:Memory {id: c.id})
  CREATE (s)-[d:DERIVED_FROM {version: c.version, at: $now, proposal_id: $proposal_id}]->(m)
  RETURN count(d) AS derived
}
CALL (p, s, row) {
  WITH p, s, row WHERE row.created
  CREATE (p)-[:CREATED {at: $now}]->(s)
  RETURN count(*) AS created
}
CALL (p, s, row) {
  WITH p, s, row WHERE NOT row.created
  CREATE (p)-[:CONFIRMED {at: $now}]->(s)
  RETURN count(*) AS confirmed
}
CALL (s) {
  MATCH (s)-[d:DERIVED_FROM]->(m:Memory)
  WHERE d.reverted_at IS NULL
  WITH DISTINCT m.id AS id ORDER BY id
  RETURN collect(id) AS ids
}
SET s.derived_from = ids, s.source_count = size(ids), s.updated_at = $now
RETURN sum(derived) AS derived
