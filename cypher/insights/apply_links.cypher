// Approval, step 2 (same transaction as the insight's creation): SUMMARIZES to each
// member's current version, DERIVED_FROM to each cited member, and the proposal's
// CREATED edge to the insight.
MATCH (i:Memory {id: $insight_id}), (p:Proposal {id: $proposal_id})
CALL (i) {
  UNWIND $members AS mem
  MATCH (m:Memory {id: mem.id})
  CREATE (i)-[s:SUMMARIZES {version: mem.version, at: $now, proposal_id: $proposal_id}]->(m)
  RETURN count(s) AS summarizes
}
CALL (i) {
  UNWIND $cited AS c
  MATCH (m:Memory {id: c.id})
  CREATE (i)-[d:DERIVED_FROM {version: c.version, claims: c.claims, at: $now, proposal_id: $proposal_id}]->(m)
  RETURN count(d) AS derived
}
CREATE (p)-[:CREATED {at: $now}]->(i)
RETURN summarizes, derived
