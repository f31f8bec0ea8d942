// A pending proposal of any kind, created once per id (ids derive from what is proposed:
// a cluster at its members' versions, a pair of memories, ...; proposing the same thing
// again finds the existing one), with an ABOUT edge to each memory it concerns, at the
// version the proposal was made from.
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
