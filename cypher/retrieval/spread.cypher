// What hybrid ranking reads after its two lists, in one round trip (issue 52):
// 1. `rows`, graph-aware recall (issue 28): one bounded step of spreading activation from the query's
// seed hits ($seeds: [{id, weight}], weight = fused score / best fused score) along the edges
// consolidation maintains, each weighted by $kinds (edge type -> weight) and its strength:
// SIMILAR its score (edges under $sim_floor ignored), LINKED the kind's weight in $link_kinds
// (1 when unlisted), CO_ACCESSED count / (count + $coaccess_k), SUMMARIZES 1 both ways
// (insight <-> member), SIBLING: a member's insight's other members. A neighbour that is no
// longer live lands on the live memory that SUPERSEDES it. Only memories of the scope
// ($namespace / $subject, null = any) come back, whatever namespace an edge reaches: an edge
// never carries another namespace's memory into a result. Reverted links carry nothing. A
// memory's spread is its strongest seed x edge (0..1 with weights <= 1).
// No seeds: no rows (the graph step is off, or it is personalised PageRank's, recall/lists.ppr).
// 2. `groups`, when $communities or $digest: for each candidate ($ids, the fused lists, and the
// memories the step reached) [id, kind, community, community size, citing, derived]: its stored
// community (latest scan, cypher/clusters/communities_store.cypher) when $communities; when $digest,
// the ids of the live insights in the scope that cite it (DERIVED_FROM, not reverted; their heads
// once each in `heads`, [id, kind, epistemic status]) and whether it cites anything itself.
// What each carrier cites is read with the memories shown (cypher/retrieval/hydrate), for the
// ranking's first places only (issue 52).
// Each part returns one row holding its list, and lists rather than maps where the caller reads a
// few fields: streaming a hundred records costs the driver more than the query (issue 52).
CALL () {
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
  // $as_of (issue 62): $live holds every status, and a neighbour lands on its winner only by an edge
  // applied and not reverted by then (as in cypher/retrieval/vector)
  OPTIONAL MATCH (w:Memory)-[s:SUPERSEDES]->(b)
  WHERE (NOT b.status IN $live OR $as_of IS NOT NULL) AND w.status IN $live
    AND CASE WHEN $as_of IS NULL THEN NOT coalesce(s.reverted, false)
             ELSE s.at <= $as_of AND (NOT coalesce(s.reverted, false) OR s.reverted_at > $as_of) END
    AND coalesce(s.reason, '') <> 'update'  // an update is not a merge: its older memory is a hit of its own
  WITH seed, kind, strength, CASE WHEN w IS NOT NULL THEN w WHEN b.status IN $live THEN b END AS hit
  WHERE hit IS NOT NULL AND hit.id <> seed.id
    AND ($namespace IS NULL OR hit.namespace = $namespace) AND ($subject IS NULL OR hit.subject = $subject)
  WITH hit, max(seed.weight * $kinds[kind] * strength) AS spread  // the strongest path, not a sum: a clique of
                                                                  // paraphrases must not outvote the query
  ORDER BY spread DESC, hit.id
  LIMIT $limit
  RETURN collect({memory: hit {.id, .kind, .epistemic_status}, spread: spread,
                  cosine: CASE WHEN $embedding IS NULL OR hit.embedding IS NULL THEN null
                               ELSE vector.similarity.cosine($embedding, hit.embedding) * 2 - 1 END}) AS rows
}
CALL (rows) {
  UNWIND CASE WHEN $communities OR $digest
              THEN $ids + [r IN rows WHERE NOT r.memory.id IN $ids | r.memory.id] ELSE [] END AS id
  MATCH (m:Memory {id: id})
  WITH m, CASE WHEN $digest AND m.kind <> 'insight' THEN
             [(i:Memory {kind: 'insight'})-[r:DERIVED_FROM]->(m)
               WHERE NOT coalesce(r.reverted, false) AND i.status IN $live
                 AND ($namespace IS NULL OR i.namespace = $namespace) AND ($subject IS NULL OR i.subject = $subject)
               | i]
           ELSE [] END AS citing
  WITH collect([m.id, m.kind, CASE WHEN $communities THEN m.community END, m.community_size, [i IN citing | i.id],
                $digest AND EXISTS { (m)-[d:DERIVED_FROM]->() WHERE NOT coalesce(d.reverted, false) }]) AS groups,
       collect(citing) AS citing
  CALL (citing) {  // each citing insight's head once, not once per candidate it cites
    UNWIND citing AS insights
    UNWIND insights AS i
    WITH DISTINCT i
    RETURN collect([i.id, i.kind, i.epistemic_status]) AS heads
  }
  RETURN groups, heads
}
RETURN rows, groups, heads
