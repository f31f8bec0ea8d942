// A floor (bench/retrieval/hot_paths.py): the vector index's nearest $candidates, kept in the
// namespace, the top $k returned as the heads retrieval reads, without winner replacement.
CALL db.index.vector.queryNodes('memory_embedding', $candidates, $embedding) YIELD node, score
WITH node, score WHERE node.namespace = $namespace
ORDER BY score DESC, node.id
LIMIT $k
RETURN collect({memory: node {.id, .kind, .epistemic_status}, cosine: score * 2 - 1}) AS hits
