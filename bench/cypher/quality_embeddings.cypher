// Ids and stored embeddings of the live memories of one namespace, ordered by id (bench/clusters/quality.py).
MATCH (m:Memory {namespace: $namespace})
WHERE m.status IN $live
RETURN m.id AS id, m.embedding AS embedding
ORDER BY id
