// Editing makes a new version: the node holds the current text, every old text stays
// as a MemoryVersion snapshot. SIMILAR scores of this memory are recomputed and new
// neighbours added; edges that fall under the floor keep their (new) score and are
// ignored by clustering, so nothing is removed.
MATCH (m:Memory {id: $id})
WHERE m.version = $expected_version
SET m += $changes, m.version = m.version + 1, m.updated_at = $now
CREATE (m)-[:VERSION]->(v:MemoryVersion)
SET v = $version_props, v.version = m.version
WITH m
CALL (m) {
  MATCH (m)-[s:SIMILAR]-(other:Memory)
  SET s.score = vector.similarity.cosine(m.embedding, other.embedding) * 2 - 1
  RETURN count(s) AS rescored
}
CALL (m) {
  CALL db.index.vector.queryNodes('memory_embedding', $candidates, m.embedding) YIELD node, score
  WITH node, 2 * score - 1 AS cosine
  WHERE node.id <> m.id AND node.namespace = m.namespace AND node.status IN $live AND cosine >= $floor
    AND NOT (m)-[:SIMILAR]-(node)
  WITH node, cosine ORDER BY cosine DESC, node.id LIMIT $k
  MERGE (m)-[s:SIMILAR]->(node)
  SET s.score = cosine
  RETURN count(s) AS added
}
RETURN m {.*, embedding: null} AS memory
