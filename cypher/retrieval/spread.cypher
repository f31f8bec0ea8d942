// Graph-aware recall (issue 28): one bounded step of spreading activation from the query's
// seed hits ($seeds: [{id, weight}], weight = fused score / best fused score) along the edges
// consolidation maintains, each weighted by $kinds (edge type -> weight) and its strength:
// SIMILAR its score (edges under $sim_floor ignored), LINKED the kind's weight in $link_kinds
// (1 when unlisted), CO_ACCESSED count / (count + $coaccess_k), SUMMARIZES 1 both ways
// (insight <-> member), SIBLING: a member's insight's other members. A neighbour that is no
// longer live lands on the live memory that SUPERSEDES it. Only memories of the scope
// ($namespace / $subject, null = any) come back, whatever namespace an edge reaches: an edge
// never carries another namespace's memory into a result. Reverted links carry nothing. A
// memory's spread is its strongest seed x edge (0..1 with weights <= 1).
// One row holding the list: streaming a hundred records costs the driver more than the query.
UNWIND $seeds AS seed
MATCH (a:Memory {id: seed.id})
CALL (a) {
  MATCH (a)-[r:SIMILAR|LINKED|CO_ACCESSED|SUMMARIZES]-(b:Memory)
  WHERE NOT coalesce(r.reverted, false) AND r.reverted_at IS NULL
    AND (type(r) <> 'SIMILAR' OR coalesce(r.score, 0.0) >= $sim_floor)
  RETURN b, type(r) AS kind,
         CASE type(r) WHEN 'SIMILAR' THEN toFloat(r.score)
                      WHEN 'LINKED' THEN coalesce($link_kinds[r.kind], 1.0)
                      WHEN 'CO_ACCESSED' THEN toFloat(r.count) / (r.count + $coaccess_k)
                      ELSE 1.0 END AS strength
  UNION ALL
  MATCH (a)<-[r1:SUMMARIZES]-(i:Memory)-[r2:SUMMARIZES]->(b:Memory)
  WHERE b <> a AND i.status IN $live AND NOT coalesce(r1.reverted, false) AND NOT coalesce(r2.reverted, false)
    AND r1.reverted_at IS NULL AND r2.reverted_at IS NULL
  RETURN b, 'SIBLING' AS kind, 1.0 AS strength
}
WITH seed, b, kind, strength
WHERE b.id <> seed.id AND coalesce($kinds[kind], 0.0) > 0
OPTIONAL MATCH (w:Memory)-[s:SUPERSEDES]->(b)
WHERE NOT b.status IN $live AND w.status IN $live AND NOT coalesce(s.reverted, false)
  AND coalesce(s.reason, '') <> 'update'  // an update is not a merge: its older memory is a hit of its own
WITH seed, kind, strength, CASE WHEN b.status IN $live THEN b ELSE w END AS hit
WHERE hit IS NOT NULL AND hit.id <> seed.id
  AND ($namespace IS NULL OR hit.namespace = $namespace) AND ($subject IS NULL OR hit.subject = $subject)
WITH hit, max(seed.weight * $kinds[kind] * strength) AS spread  // the strongest path, not a sum: a clique of
                                                                // paraphrases must not outvote the query
ORDER BY spread DESC, hit.id
LIMIT $limit
RETURN collect({memory: hit {.id, .kind, .epistemic_status}, spread: spread,
                cosine: CASE WHEN $embedding IS NULL OR hit.embedding IS NULL THEN null
                             ELSE vector.similarity.cosine($embedding, hit.embedding) * 2 - 1 END}) AS rows
