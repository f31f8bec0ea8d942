// The pairwise similarities of a few memories ($ids, in order), for the synthesis prompt's cosines, in
// the form merge/block_pairs sends them (graphcons.core.vectors.cosine_matrix reads both): the
// upper triangle of vector.similarity.cosine, (1 + cosine) / 2, `sims[i][j - i - 1]` for hits i < j,
// computed on the server so the embeddings never leave it. A memory without an embedding counts
// as unrelated (0.5, cosine 0); each embedding is collected inside a list so it keeps its place.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WITH collect([m.embedding]) AS es
RETURN [i IN range(0, size(es) - 2) |
        [j IN range(i + 1, size(es) - 1) |
         CASE WHEN es[i][0] IS NULL OR es[j][0] IS NULL THEN 0.5
              ELSE vector.similarity.cosine(es[i][0], es[j][0]) END]] AS sims
