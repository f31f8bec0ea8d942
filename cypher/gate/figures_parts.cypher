// The gate's figures for every candidate part at once (issue 15), when no memory is in two
// parts: $part maps each member id to its part's index. The same
// figures, by the same definitions, as gate/figures (one subquery per cluster):
//   weight_sum:   sum over member pairs of the fused weight (same formula as
//                 clusters/project), each pair capped at 1 -> cohesion = weight_sum / pairs
//   edges:        member pairs with a positive fused weight
//   coaccess:     sum of CO_ACCESSED counts between members (usage mass)
// A part whose members share no edge returns weight_sum 0. Novelty: gate/insight_members.
// Members are read by one label scan (cheaper than an index seek per member when most
// memories are in a part) and taken in id order, as the reference takes each cluster's.
MATCH (a:Memory)
WHERE $part[a.id] IS NOT NULL
WITH a ORDER BY a.id
WITH a, $part[a.id] AS p, EXISTS { (a)-[:SUMMARIZES]-() } AS summarizes
OPTIONAL MATCH (a)-[r:SIMILAR|LINKED|CO_ACCESSED]-(b:Memory)
WHERE a.id < b.id AND $part[b.id] = p AND (NOT summarizes OR NOT EXISTS { (a)-[:SUMMARIZES]-(b) })
WITH p, a, b, r,
     CASE type(r)
       WHEN 'SIMILAR' THEN CASE WHEN r.score >= $sim_floor THEN $similarity_weight * r.score ELSE 0.0 END
       WHEN 'LINKED' THEN $link_weight * coalesce($link_kind_weights[r.kind], 1.0)
       WHEN 'CO_ACCESSED' THEN $coaccess_weight * toFloat(r.count) / (r.count + $coaccess_k)
       ELSE 0.0 END AS x
// Float sums in a fixed order (pair by ids, a pair's signals by value), so the same store gives
// the same figure to the last bit whatever order the server expands relationships in.
ORDER BY p, a.id, b.id, x
WITH p, a, b, reduce(s = 0.0, v IN collect(x) | s + v) AS w,
     sum(CASE type(r) WHEN 'CO_ACCESSED' THEN r.count ELSE 0 END) AS co
ORDER BY p, a.id, b.id
WITH p, collect(CASE WHEN w > 1.0 THEN 1.0 ELSE w END) AS ws,
     sum(CASE WHEN w > 0 THEN 1 ELSE 0 END) AS edges, sum(co) AS coaccess
RETURN p, reduce(s = 0.0, v IN ws | s + v) AS weight_sum, edges, coaccess
