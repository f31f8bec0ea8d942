// Nearest memories to a query vector in a scope too large for the exact scan: the nearest
// $candidates store-wide from the vector index, kept when inside the scope ($namespace
// and/or $subject, null = any), re-scored exactly; the caller widens $candidates until k
// hits come back. A deprecated hit is replaced by the live memory that SUPERSEDES it
// (following the chain); reverted SUPERSEDES edges are ignored, and so are updates (reason
// 'update': the older memory stays a hit of its own, shown after its successor by
// graphcons.recall.current). Ties are broken by id.
// The index must be ONLINE now: db.awaitIndex with no wait fails at once when it is missing
// (IndexNotFound) or being rebuilt (ProcedureTimedOut), where queryNodes would block until it is
// online (28 s at 100k memories); the caller then scans the scope exactly (store.schema).
CALL db.awaitIndex('memory_embedding', 0)
CALL db.index.vector.queryNodes('memory_embedding', $candidates, $embedding) YIELD node
WHERE ($namespace IS NULL OR node.namespace = $namespace) AND ($subject IS NULL OR node.subject = $subject)
WITH node, vector.similarity.cosine($embedding, node.embedding) * 2 - 1 AS cosine
OPTIONAL MATCH path = (winner:Memory)-[:SUPERSEDES*1..5]->(node)
WHERE winner.status IN $live AND none(r IN relationships(path) WHERE coalesce(r.reverted, false)
                                                             OR coalesce(r.reason, '') = 'update')
WITH node, cosine, winner, path
ORDER BY length(path) DESC
WITH node, cosine, head(collect(winner)) AS winner
WITH coalesce(winner, node) AS hit, cosine, CASE WHEN winner IS NULL THEN null ELSE node.id END AS via
WHERE hit.status IN $live
WITH hit, max(cosine) AS cosine, collect(via) AS via
ORDER BY cosine DESC, hit.id
LIMIT $k
// One row holding the list: streaming a hundred records costs the driver more than the query (issue 39).
RETURN collect({memory: hit {.id, .kind, .epistemic_status}, cosine: cosine,
                superseded: [v IN via WHERE v IS NOT NULL]}) AS hits
