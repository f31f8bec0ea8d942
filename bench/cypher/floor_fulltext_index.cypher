// A floor (bench/retrieval/hot_paths.py): the full-text index's best $candidates for the Lucene query
// cypher/retrieval/fulltext sends, counted.
CALL db.index.fulltext.queryNodes('memory_text', $text, {limit: $candidates}) YIELD node
RETURN count(node) AS n
