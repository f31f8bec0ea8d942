// The pairwise cosines of a few hits ($ids, in order), for retrieval's diversity step: the upper
// triangle, `sims[i][j - i - 1]` is hits i and j (i < j), computed on the server so the embeddings
// never leave it; null where a memory has no embedding. Each embedding is collected inside a list
// so that a missing one keeps its place.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WITH collect([m.embedding]) AS es
RETURN [i IN range(0, size(es) - 2) |
        [j IN range(i + 1, size(es) - 1) |
         CASE WHEN es[i][0] IS NULL OR es[j][0] IS NULL THEN null
              ELSE vector.similarity.cosine(es[i][0], es[j][0]) * 2 - 1 END]] AS sims
