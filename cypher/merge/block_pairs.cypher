// The cosines inside whole blocks (issue 15): `$blocks` is a list of blocks, each the ids of
// one namespace + subject's live memories. Per block: its members' scoring fields and the
// upper triangle of their pairwise similarities, computed on the server with the function
// the vector index scores with ((1 + cosine) / 2, float32), so the figures are the index's
// and the embeddings never leave the database: `sims[i][j - i - 1]` is members i and j (i < j).
UNWIND $blocks AS ids
CALL (ids) {
  UNWIND ids AS mid
  MATCH (m:Memory {id: mid})
  RETURN collect(m {.id, .title, .title_derived, .content, .subject, .namespace, .status, .effective_weight,
                    .evidence_count, .version}) AS members, collect(m.embedding) AS es
}
RETURN members, [i IN range(0, size(es) - 2) |
                 [j IN range(i + 1, size(es) - 1) | vector.similarity.cosine(es[i], es[j])]] AS sims
