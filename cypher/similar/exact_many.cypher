// A batch's exact SIMILAR neighbours, written as edges, for two callers:
// - batch admission ($earlier_only false): exactly as if the batch had been admitted one by one in
//   order: memory $ids[i] sees the store and the batch's memories before it ($ids[j], j < i, by
//   $position), never later ones; its scope size is the index count less the batch's memories after
//   it in the scope (its rank in the group);
// - the deferred links of a put (graphcons.store.linker, issue 63; $earlier_only true, $position {}):
//   the batch is in the store already, each memory sees those admitted before it (the rule of
//   cypher/similar/exact.cypher with $earlier_only) and its scope size is the index count.
// Same rule as cypher/memory/admit.cypher (live, cosine >= $floor, top $k, ties by id); a scope over
// $exact_max returns no neighbours (the caller reads the vector index).
// $groups: the batch's memories by scope ({namespace, subject, items: [i ascending]}).
// Reading a stored embedding is most of a candidate's cost (~7 us of ~10, issue 15), so each
// scope's embeddings are read once into a list for all the batch's memories in it (a batch
// of 32 per scope: 3x faster; one per scope: the list costs ~5 %). The id, position and
// status checks come after the floor, where few candidates are left. MERGE keeps one edge per pair
// when two linkers (a process's thread, the worker) race on the same memory; the edge goes from the
// later memory to the earlier, as admission writes it.
UNWIND $groups AS group
WITH group, size(group.items) AS batched, CASE WHEN $earlier_only THEN 0 ELSE 1 END AS later
CALL (group) {
  MATCH (n:Memory {namespace: group.namespace, subject: group.subject})
  RETURN count(n) AS count
}
CALL (group, count, batched, later) {  // the first item sees the smallest scope: none scans when it is too large
  MATCH (n:Memory {namespace: group.namespace, subject: group.subject})
  USING INDEX n:Memory(namespace, subject)
  WHERE $k > 0 AND count - later * (batched - 1) <= $exact_max
  RETURN collect({n: n, e: n.embedding}) AS candidates
}
UNWIND range(0, batched - 1) AS rank
WITH group.items[rank] AS i, count - later * (batched - 1 - rank) AS size, candidates
MATCH (m:Memory {id: $ids[i]})
WITH m, i, m.embedding AS e, size, candidates
CALL (m, e, i, size, candidates) {
  UNWIND CASE WHEN $k > 0 AND size <= $exact_max THEN candidates ELSE [] END AS c
  WITH c.n AS n, vector.similarity.cosine(e, c.e) * 2 - 1 AS cosine
  WHERE cosine >= $floor
  WITH n, cosine
  WHERE n.id <> m.id AND n.status IN $live AND coalesce($position[n.id], -1) < i
    AND (NOT $earlier_only OR n.admitted_at < m.admitted_at OR (n.admitted_at = m.admitted_at AND n.id < m.id))
  WITH n, cosine
  ORDER BY cosine DESC, n.id
  LIMIT $k
  MERGE (m)-[s:SIMILAR]->(n)
  SET s.score = cosine
  RETURN collect({id: n.id, score: cosine}) AS neighbours
}
RETURN i, m.id AS id, size, neighbours  // unsorted: a sort would hold every scope's list until the end
