// A floor (bench/retrieval/hot_paths.py): the vector index's nearest $candidates alone, counted, as
// cypher/retrieval/vector asks for them on a large scope.
CALL db.index.vector.queryNodes('memory_embedding', $candidates, $embedding) YIELD node
RETURN count(node) AS n
