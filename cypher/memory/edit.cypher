// Editing makes a new version: the node holds the current text, every old text stays
// as a MemoryVersion snapshot. SIMILAR scores of this memory are recomputed (new
// neighbours are added next by graphcons.store.neighbours); edges that fall under the
// floor keep their (new) score and are ignored by clustering, so nothing is removed.
MATCH (m:Memory {id: $id})
WHERE m.version = $expected_version
SET m += $changes, m.version = m.version + 1, m.updated_at = $now
CREATE (m)-[:VERSION]->(v:MemoryVersion)
SET v = $version_props, v.version = m.version
WITH m
CALL (m) {  // a new text's embedding ($embedding null when only other fields change), as 32-bit floats
  WITH m WHERE $embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(m, 'embedding', $embedding)
}
CALL (m) {
  MATCH (m)-[s:SIMILAR]-(other:Memory)
  SET s.score = vector.similarity.cosine(m.embedding, other.embedding) * 2 - 1
  RETURN count(s) AS rescored
}
RETURN m {.*, embedding: null} AS memory
