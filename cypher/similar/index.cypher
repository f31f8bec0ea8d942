// SIMILAR candidates for memory $id in a scope too large for the exact scan: the nearest
// $candidates memories store-wide from the vector index, kept when they share namespace
// and subject, re-scored exactly, minus $exclude (later items of a batch admission).
// pool/lowest tell the caller whether to widen the pool.
MATCH (m:Memory {id: $id})
CALL (m) {
  CALL db.index.vector.queryNodes('memory_embedding', $candidates, m.embedding) YIELD node, score
  RETURN collect(node) AS pool, min(score) * 2 - 1 AS lowest
}
RETURN size(pool) AS pool, coalesce(lowest, -1.0) AS lowest,
       [n IN pool WHERE n.id <> m.id AND n.namespace = m.namespace AND n.subject = m.subject
          AND n.status IN $live AND NOT n.id IN $exclude
          AND (NOT $earlier_only OR n.admitted_at < m.admitted_at OR (n.admitted_at = m.admitted_at AND n.id < m.id))
        | {id: n.id, score: vector.similarity.cosine(m.embedding, n.embedding) * 2 - 1}] AS scoped
