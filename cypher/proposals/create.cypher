// A pending proposal, created once per id (the id is derived from kind, cluster key and
// membership hash, so the same cluster at the same versions never queues twice), with an
// ABOUT edge to each member at the version the proposal was made from.
OPTIONAL MATCH (existing:Proposal {id: $props.id})
WITH existing
WHERE existing IS NULL
CREATE (p:Proposal)
SET p = $props
WITH p
CALL (p) {
  UNWIND $members AS mem
  MATCH (m:Memory {id: mem.id})
  CREATE (p)-[a:ABOUT {version: mem.version}]->(m)
  RETURN count(a) AS about
}
RETURN p.id AS id, about
