// "How do you know X?": every SUMMARIZES / DERIVED_FROM link below memory $id, down to the
// source episodes, one row per link (insights over insights included, up to 8 levels).
// Paste into the Browser after `:param id => 'ins-...'`.
MATCH (root:Memory {id: $id})
MATCH (root)-[:SUMMARIZES|DERIVED_FROM*0..8]->(n:Memory)
WITH DISTINCT n
MATCH (n)-[r:SUMMARIZES|DERIVED_FROM]->(c:Memory)
RETURN n.id AS parent, type(r) AS type, c.id AS child, r.version AS version, r.reverted_at AS reverted_at,
       EXISTS { MATCH (c)-[:VERSION]->(v:MemoryVersion) WHERE v.version = r.version } AS version_exists
ORDER BY parent, child, type
