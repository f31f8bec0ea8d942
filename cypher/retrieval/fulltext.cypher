// Keyword search over title and content, live memories of the scope only ($namespace and/or
// $subject, null = any). $text is already escaped for Lucene (graphcons.store.retrieval):
// user text is never query syntax. The index returns every match, so the filter is exact.
// The index is eventually consistent (cypher/schema/02_indexes): wait for its pending updates
// first, in this same query, so a search sees what was just admitted.
CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()
CALL db.index.fulltext.queryNodes('memory_text', $text) YIELD node, score
WHERE node.status IN $live AND ($namespace IS NULL OR node.namespace = $namespace)
  AND ($subject IS NULL OR node.subject = $subject)
RETURN node {.*, embedding: null} AS memory, score
ORDER BY score DESC, node.id
LIMIT $k
