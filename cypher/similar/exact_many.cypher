// Batch admission: each new memory's scope size and exact SIMILAR neighbours, written as
// edges, exactly as if the batch had been admitted one by one in order: memory $ids[i]
// sees the store and the batch's memories before it ($ids[j], j < i), never later ones.
// Same rule as cypher/memory/admit.cypher (live, cosine >= $floor, top $k, ties by id);
// a scope over $exact_max returns no neighbours (the caller reads the vector index).
// $later[i] counts the batch's memories after $ids[i] in its scope (known to the caller),
// so the size is an index count. Reading the embedding is the cost per candidate (~7 us
// of ~10, issue 15): the id, position and status checks come after the floor, where few
// candidates are left, and give the same answer as before it.
UNWIND range(0, size($ids) - 1) AS i
MATCH (m:Memory {id: $ids[i]})
WITH m, i, m.embedding AS e  // read once, not once per candidate (a batch's new nodes live in tx state)
CALL (m) {
  MATCH (n:Memory {namespace: m.namespace, subject: m.subject})
  RETURN count(n) AS count
}
WITH m, i, e, count - $later[i] AS size
CALL (m, e, i, size) {
  MATCH (n:Memory {namespace: m.namespace, subject: m.subject})
  USING INDEX n:Memory(namespace, subject)
  WHERE $k > 0 AND size <= $exact_max
  WITH n, vector.similarity.cosine(e, n.embedding) * 2 - 1 AS cosine
  WHERE cosine >= $floor
  WITH n, cosine
  WHERE n.id <> m.id AND n.status IN $live AND coalesce($position[n.id], -1) < i
  WITH n, cosine
  ORDER BY cosine DESC, n.id
  LIMIT $k
  CREATE (m)-[:SIMILAR {score: cosine}]->(n)
  RETURN collect({id: n.id, score: cosine}) AS neighbours
}
RETURN i, size, neighbours
ORDER BY i
