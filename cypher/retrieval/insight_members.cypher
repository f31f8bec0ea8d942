// Insight-aware results: the live members each insight in $ids SUMMARIZES (reverted links
// ignored), most relevant to the query first ($embedding null: by id).
UNWIND $ids AS iid
MATCH (:Memory {id: iid})-[r:SUMMARIZES]->(m:Memory)
WHERE NOT coalesce(r.reverted, false) AND m.status IN $live
WITH iid, m, CASE WHEN $embedding IS NULL THEN 0.0
                  ELSE vector.similarity.cosine($embedding, m.embedding) * 2 - 1 END AS relevance
ORDER BY iid, relevance DESC, m.id
RETURN iid AS insight, collect({memory: m {.id, .kind, .epistemic_status}, relevance: relevance}) AS members
