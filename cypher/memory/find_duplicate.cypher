// Exact duplicate: same normalised text about the same subject in the same namespace.
MATCH (m:Memory {namespace: $namespace, subject: $subject, content_hash: $content_hash})
RETURN m.id AS id, m.sources AS sources
ORDER BY m.created_at, m.id
LIMIT 1
