// The live memories of one namespace (and subject, when $subject is not null), oldest first,
// one page: a LangGraph store's search without a query (issue 42).
MATCH (m:Memory {namespace: $namespace})
WHERE m.status IN $live AND ($subject IS NULL OR m.subject = $subject)
RETURN m {.*, embedding: null} AS memory
ORDER BY m.created_at, m.id
SKIP $offset LIMIT $limit
