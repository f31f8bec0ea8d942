// The SIMILAR edges a put deferred (graphcons.store.linker, issue 63), for a batch of memories in
// admission order, grouped by scope ($groups: {namespace, subject, ids}): each memory's exact top $k
// among the live memories of its scope admitted before it, cosine >= $floor, ties by id (the rule
// of cypher/similar/exact.cypher with $earlier_only), so the edges are the ones admission would
// have written. Each scope's embeddings are read once for the batch (as similar/exact_many). A
// scope over $exact_max returns no neighbours: the caller reads the vector index. MERGE keeps one
// edge per pair when two linkers (a process's thread, the worker) race on the same memory; the edge
// goes from the later memory to the earlier, as admission writes it.
UNWIND $groups AS group
CALL (group) {
  MATCH (n:Memory {namespace: group.namespace, subject: group.subject})
  RETURN count(n) AS size
}
CALL (group, size) {
  MATCH (n:Memory {namespace: group.namespace, subject: group.subject})
  USING INDEX n:Memory(namespace, subject)
  WHERE $k > 0 AND size <= $exact_max
  RETURN collect({n: n, e: n.embedding}) AS candidates
}
UNWIND group.ids AS id
MATCH (m:Memory {id: id})
WITH m, m.embedding AS e, size, candidates
CALL (m, e, size, candidates) {
  UNWIND CASE WHEN $k > 0 AND size <= $exact_max THEN candidates ELSE [] END AS c
  WITH c.n AS n, vector.similarity.cosine(e, c.e) * 2 - 1 AS cosine
  WHERE cosine >= $floor
  WITH n, cosine
  WHERE n.id <> m.id AND n.status IN $live
    AND (n.admitted_at < m.admitted_at OR (n.admitted_at = m.admitted_at AND n.id < m.id))
  WITH n, cosine
  ORDER BY cosine DESC, n.id
  LIMIT $k
  MERGE (m)-[s:SIMILAR]->(n)
  SET s.score = cosine
  RETURN collect({id: n.id, score: cosine}) AS neighbours
}
RETURN m.id AS id, size, neighbours
