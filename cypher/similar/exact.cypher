// SIMILAR candidates for memory $id, exact: cosine against every live memory of the same
// namespace and subject (other subjects cannot take its slots), ties broken by id, so the
// same store always gives the same neighbours. $earlier_only keeps those admitted before
// $id (the migration replays admission order).
MATCH (m:Memory {id: $id})
MATCH (n:Memory {namespace: m.namespace, subject: m.subject})
WHERE n.id <> m.id AND n.status IN $live
  AND (NOT $earlier_only OR n.admitted_at < m.admitted_at OR (n.admitted_at = m.admitted_at AND n.id < m.id))
WITH n, vector.similarity.cosine(m.embedding, n.embedding) * 2 - 1 AS cosine
WHERE cosine >= $floor
RETURN n.id AS id, cosine AS score
ORDER BY score DESC, id
LIMIT $k
