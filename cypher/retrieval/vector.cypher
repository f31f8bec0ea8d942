// Nearest memories to a query vector; a deprecated hit is replaced by the live memory
// that SUPERSEDES it (following the chain), so retrieval always lands on the winner.
// Reverted SUPERSEDES edges (an undone merge or a restore) are kept but ignored.
CALL db.index.vector.queryNodes('memory_embedding', $candidates, $embedding) YIELD node, score
WHERE $namespace IS NULL OR node.namespace = $namespace
OPTIONAL MATCH path = (winner:Memory)-[:SUPERSEDES*1..5]->(node)
WHERE winner.status IN $live AND none(r IN relationships(path) WHERE coalesce(r.reverted, false))
WITH node, 2 * score - 1 AS cosine, winner, path
ORDER BY length(path) DESC
WITH node, cosine, head(collect(winner)) AS winner
WITH coalesce(winner, node) AS hit, cosine, CASE WHEN winner IS NULL THEN null ELSE node.id END AS via
WHERE hit.status IN $live
WITH hit, max(cosine) AS cosine, collect(via) AS via
RETURN hit {.*, embedding: null} AS memory, cosine, [v IN via WHERE v IS NOT NULL] AS superseded
ORDER BY cosine DESC, hit.id
LIMIT $k
