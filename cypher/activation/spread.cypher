// Spreading activation (seed 000): each touched live insight gains $amount; every memory
// beneath it along (non-reverted) SUMMARIZES links gains $amount * $decay ^ depth, taking the
// shortest path from each insight and summing over insights. Writes m.activation, which the
// value gate's salience reads.
UNWIND $ids AS id
MATCH (i:Memory {id: id})
WHERE i.kind = 'insight' AND i.status IN $live
SET i.activation = coalesce(i.activation, 0.0) + $amount
WITH i
MATCH path = (i)-[:SUMMARIZES*1..4]->(m:Memory)
WHERE length(path) <= $depth AND all(r IN relationships(path) WHERE r.reverted_at IS NULL)
WITH i, m, min(length(path)) AS depth
WITH m, sum($amount * ($decay ^ depth)) AS delta
SET m.activation = coalesce(m.activation, 0.0) + delta
RETURN m.id AS id, delta, m.activation AS activation
ORDER BY id
