// Every (namespace, subject) that holds a live memory, in order: what a LangGraph store's
// list_namespaces enumerates (issue 42). $namespaces null = every namespace.
MATCH (m:Memory)
WHERE m.status IN $live AND ($namespaces IS NULL OR m.namespace IN $namespaces)
RETURN DISTINCT m.namespace AS namespace, m.subject AS subject
ORDER BY namespace, subject
