// SIMILAR candidates for memory $id, in one round trip on admission's hot path: the size of
// its scope (same namespace and subject), and, when the scope has at most $exact_max
// memories, the exact top $k: cosine against every live memory of the scope (other subjects
// cannot take its slots), ties broken by id, so the same store always gives the same
// neighbours. A larger scope returns no neighbours here: graphcons.store.neighbours then
// reads the vector index. $earlier_only keeps those admitted before $id (the migration
// replays admission order); $exclude leaves out a batch's later items.
MATCH (m:Memory {id: $id})
CALL (m) {
  MATCH (n:Memory {namespace: m.namespace, subject: m.subject})
  RETURN count(n) AS size
}
CALL (m, size) {
  MATCH (n:Memory {namespace: m.namespace, subject: m.subject})
  USING INDEX n:Memory(namespace, subject)
  WHERE size <= $exact_max AND n.id <> m.id AND n.status IN $live AND NOT n.id IN $exclude
    AND (NOT $earlier_only OR n.admitted_at < m.admitted_at OR (n.admitted_at = m.admitted_at AND n.id < m.id))
  WITH n, vector.similarity.cosine(m.embedding, n.embedding) * 2 - 1 AS cosine
  WHERE cosine >= $floor
  WITH n.id AS id, cosine
  ORDER BY cosine DESC, id
  LIMIT $k
  RETURN collect({id: id, score: cosine}) AS neighbours
}
RETURN size, neighbours
