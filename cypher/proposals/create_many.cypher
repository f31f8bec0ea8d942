// proposals/create for many proposals in one statement: each pending proposal created once
// per id, with an ABOUT {version} edge to each memory it concerns.
UNWIND $rows AS row
OPTIONAL MATCH (existing:Proposal {id: row.props.id})
WITH row, existing
WHERE existing IS NULL
CREATE (p:Proposal)
SET p = row.props
WITH p, row
CALL (p, row) {
  UNWIND row.members AS mem
  MATCH (m:Memory {id: mem.id})
  CREATE (p)-[a:ABOUT {version: mem.version}]->(m)
  RETURN count(a) AS about
}
RETURN p.id AS id, about
