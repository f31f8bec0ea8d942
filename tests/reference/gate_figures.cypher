// The gate's figures for each candidate cluster (a list of member ids), from the stored edges.
//   weight_sum:   sum over member pairs of the fused weight (same formula as
//                 clusters/project), each pair capped at 1 -> cohesion = weight_sum / pairs
//   coaccess:     sum of CO_ACCESSED counts between members (usage mass)
//   novelty:      the largest share of members that one live insight already SUMMARIZES
UNWIND $clusters AS c
CALL (c) {
  UNWIND c.ids AS id
  MATCH (a:Memory {id: id})
  OPTIONAL MATCH (a)-[r:SIMILAR|LINKED|CO_ACCESSED]-(b:Memory)
  WHERE a.id < b.id AND b.id IN c.ids AND NOT EXISTS { (a)-[:SUMMARIZES]-(b) }
  WITH a, b,
       sum(CASE type(r)
         WHEN 'SIMILAR' THEN CASE WHEN r.score >= $sim_floor THEN $similarity_weight * r.score ELSE 0.0 END
         WHEN 'LINKED' THEN $link_weight * coalesce($link_kind_weights[r.kind], 1.0)
         WHEN 'CO_ACCESSED' THEN $coaccess_weight * toFloat(r.count) / (r.count + $coaccess_k)
         ELSE 0.0 END) AS w,
       sum(CASE type(r) WHEN 'CO_ACCESSED' THEN r.count ELSE 0 END) AS co
  RETURN sum(CASE WHEN w > 1.0 THEN 1.0 ELSE w END) AS weight_sum,
         sum(CASE WHEN w > 0 THEN 1 ELSE 0 END) AS edges,
         sum(co) AS coaccess
}
CALL (c) {
  UNWIND c.ids AS id
  MATCH (m:Memory {id: id})
  MATCH (m)<-[:SUMMARIZES]-(i:Memory)
  WHERE i.kind = 'insight' AND i.status IN $live
  WITH i, count(DISTINCT m) AS covered
  ORDER BY covered DESC, i.id
  RETURN collect({insight: i.id, covered: covered})[0] AS best
}
RETURN c.key AS key, weight_sum, edges, coaccess, best.insight AS insight, coalesce(best.covered, 0) AS covered
