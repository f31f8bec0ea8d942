// Memories per namespace and status, for the graphcons_memories gauge (issue 42).
MATCH (m:Memory)
RETURN m.namespace AS namespace, m.status AS status, count(*) AS n
ORDER BY namespace, status
