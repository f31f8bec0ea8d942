// Admission: the memory, its first version snapshot, and its SIMILAR edges to the
// top-k existing live memories of the same namespace above the cosine floor.
// The vector index reports (1 + cosine) / 2; the edges store the cosine itself.
CREATE (m:Memory)
SET m = $props
CREATE (m)-[:VERSION]->(v:MemoryVersion)
SET v = $version_props
WITH m
CALL (m) {
  CALL db.index.vector.queryNodes('memory_embedding', $candidates, $props.embedding) YIELD node, score
  WITH node, 2 * score - 1 AS cosine
  WHERE node.id <> m.id AND node.namespace = m.namespace AND node.status IN $live AND cosine >= $floor
  WITH node, cosine ORDER BY cosine DESC, node.id LIMIT $k
  MERGE (m)-[s:SIMILAR]->(node)
  SET s.score = cosine
  RETURN collect({id: node.id, score: cosine}) AS similar
}
RETURN m.id AS id, similar
