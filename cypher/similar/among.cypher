// Exact SIMILAR candidates for memory $id among the memories $ids (the earlier items of a
// batch admission: written in this transaction, not yet visible to the vector index), kept
// when they share its scope, are live and reach $floor.
MATCH (m:Memory {id: $id})
UNWIND $ids AS other
MATCH (n:Memory {id: other})
WHERE n.namespace = m.namespace AND n.subject = m.subject AND n.status IN $live AND n.id <> m.id
WITH n, vector.similarity.cosine(m.embedding, n.embedding) * 2 - 1 AS score
WHERE score >= $floor
RETURN collect({id: n.id, score: score}) AS scored
