// Keyword search over title and content (Lucene syntax), live memories only.
CALL db.index.fulltext.queryNodes('memory_text', $text) YIELD node, score
WHERE node.status IN $live AND ($namespace IS NULL OR node.namespace = $namespace)
RETURN node {.*, embedding: null} AS memory, score
ORDER BY score DESC, node.id
LIMIT $k
