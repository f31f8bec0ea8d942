// Nearest memories to a query vector, exact, in one round trip: the size of the retrieval
// scope ($namespace and/or $subject, either may be null; each branch uses an index) and,
// when it has at most $exact_max memories, its top $k by cosine against every memory of the
// scope, so the scope's top-k is never crowded out by other scopes (a larger scope returns
// no hits here: graphcons.recall.lists then reads the vector index). A deprecated hit is
// replaced by the live memory that SUPERSEDES it (following the chain); reverted SUPERSEDES
// edges are ignored, and so are updates (reason 'update': the older memory stays a hit of its
// own, shown after its successor by graphcons.recall.current). Ties are broken by id.
// Each branch tests its parameters before it matches: a test after the MATCH ran on every row
// of a seek it rejects (100k index entries for a subject scope at 100k memories, ~30 ms).
CALL () {
  MATCH (node:Memory {namespace: $namespace, subject: $subject}) RETURN node
  UNION
  WITH 1 AS branch WHERE $namespace IS NOT NULL AND $subject IS NULL
  MATCH (node:Memory {namespace: $namespace}) RETURN node
  UNION
  WITH 1 AS branch WHERE $namespace IS NULL AND $subject IS NOT NULL
  MATCH (node:Memory {subject: $subject}) RETURN node
  UNION
  WITH 1 AS branch WHERE $namespace IS NULL AND $subject IS NULL
  MATCH (node:Memory) RETURN node
}
WITH node LIMIT $exact_max + 1  // enough to know the scope is too large for the exact scan
WITH collect(node) AS scope
CALL (scope) {
  UNWIND CASE WHEN size(scope) <= $exact_max THEN scope ELSE [] END AS node
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
  RETURN collect({memory: hit {.id, .kind, .epistemic_status}, cosine: cosine,
                  superseded: [v IN via WHERE v IS NOT NULL]}) AS hits
}
CALL () { MATCH (n:Memory) RETURN count(n) AS store }  // the count store: the widest pool the index can return
RETURN size(scope) AS size, hits, store  // size: capped at $exact_max + 1
