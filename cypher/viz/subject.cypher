// The memories of one subject (and namespace, when given), live ones first, newest first.
MATCH (m:Memory {subject: $subject})
WHERE $namespace IS NULL OR m.namespace = $namespace
RETURN m.id AS id
ORDER BY CASE WHEN m.status IN $live THEN 0 ELSE 1 END, m.created_at DESC, m.id
LIMIT $limit
