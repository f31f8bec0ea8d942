// Memories in the retrieval scope ($namespace and/or $subject, either may be null): decides
// between the exact scan and the vector index (graphcons.store.retrieval).
CALL () {
  MATCH (node:Memory {namespace: $namespace, subject: $subject}) RETURN node
  UNION
  MATCH (node:Memory {namespace: $namespace}) WHERE $subject IS NULL RETURN node
  UNION
  MATCH (node:Memory {subject: $subject}) WHERE $namespace IS NULL RETURN node
  UNION
  MATCH (node:Memory) WHERE $namespace IS NULL AND $subject IS NULL RETURN node
}
RETURN count(node) AS size
