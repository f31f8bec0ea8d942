// Digest results (issue 39): the live members each insight in $ids cites (DERIVED_FROM: the
// members whose facts its text states), most relevant to the query first ($embedding null: by id).
// They travel with the insight as its provenance; the insight is one item of k.
UNWIND $ids AS iid
MATCH (:Memory {id: iid})-[r:DERIVED_FROM]->(m:Memory)
WHERE NOT coalesce(r.reverted, false) AND m.status IN $live
WITH iid, m, CASE WHEN $embedding IS NULL THEN 0.0
                  ELSE vector.similarity.cosine($embedding, m.embedding) * 2 - 1 END AS relevance
ORDER BY iid, relevance DESC, m.id
RETURN iid AS insight, collect({memory: m {.id, .kind, .epistemic_status}, relevance: relevance}) AS members
