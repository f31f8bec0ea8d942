// Near-duplicate candidates for one page of live memories (paged by id): the vector
// index's `$width` nearest neighbours, kept only within the same subject and namespace
// and live, best `$k` by cosine (ties by id). Never all pairs. `$namespace` / `$subject`
// (null = all) limit the pass. The index reports
// (1 + cosine) / 2 and is built without quantization, so `cosine` is exact.
MATCH (m:Memory)
WHERE m.status IN $live AND ($after IS NULL OR m.id > $after)
  AND ($namespace IS NULL OR m.namespace = $namespace) AND ($subject IS NULL OR m.subject = $subject)
WITH m ORDER BY m.id LIMIT $limit
CALL (m) {
  CALL db.index.vector.queryNodes('memory_embedding', $width, m.embedding) YIELD node, score
  WITH node, 2 * score - 1 AS cosine
  WHERE node.id <> m.id AND node.namespace = m.namespace AND node.subject = m.subject AND node.status IN $live
  WITH node, cosine ORDER BY cosine DESC, node.id LIMIT $k
  RETURN collect({id: node.id, cosine: cosine}) AS neighbours
}
RETURN m {.id, .title, .title_derived, .content, .subject, .namespace, .status, .effective_weight,
          .evidence_count, .created_at, .version} AS memory, neighbours
ORDER BY m.id
