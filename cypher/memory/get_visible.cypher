// One memory by id, only if it lies in one of $namespaces: a memory of another namespace
// answers exactly like a missing id (same query, same empty result; issue 30).
MATCH (m:Memory {id: $id})
WHERE m.namespace IN $namespaces
RETURN m {.*, embedding: null} AS memory
