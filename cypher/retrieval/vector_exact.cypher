// Nearest memories to a query vector, exact: cosine against every memory of the scope
// ($namespace and/or $subject, either may be null; each branch uses an index), so the
// scope's top-k is never crowded out by other scopes. A deprecated hit is replaced by the
// live memory that SUPERSEDES it (following the chain); reverted SUPERSEDES edges are
// ignored. Ties are broken by id.
CALL () {
  MATCH (node:Memory {namespace: $namespace, subject: $subject}) RETURN node
  UNION
  MATCH (node:Memory {namespace: $namespace}) WHERE $subject IS NULL RETURN node
  UNION
  MATCH (node:Memory {subject: $subject}) WHERE $namespace IS NULL RETURN node
  UNION
  MATCH (node:Memory) WHERE $namespace IS NULL AND $subject IS NULL RETURN node
}
WITH node, vector.similarity.cosine($embedding, node.embedding) * 2 - 1 AS cosine
OPTIONAL MATCH path = (winner:Memory)-[:SUPERSEDES*1..5]->(node)
WHERE winner.status IN $live AND none(r IN relationships(path) WHERE coalesce(r.reverted, false))
WITH node, cosine, winner, path
ORDER BY length(path) DESC
WITH node, cosine, head(collect(winner)) AS winner
WITH coalesce(winner, node) AS hit, cosine, CASE WHEN winner IS NULL THEN null ELSE node.id END AS via
WHERE hit.status IN $live
WITH hit, max(cosine) AS cosine, collect(via) AS via
RETURN hit {.*, embedding: null} AS memory, cosine, [v IN via WHERE v IS NOT NULL] AS superseded
ORDER BY cosine DESC, hit.id
LIMIT $k
