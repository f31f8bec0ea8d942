// Novelty for every candidate part at once (issue 15; same definition as gate/figures): per
// part, the live insight that already SUMMARIZES the most of its members (ties: smallest id).
// $ids lists every member, $part maps each to its part's index; parts no insight covers are absent.
UNWIND $ids AS id
MATCH (m:Memory {id: id})<-[:SUMMARIZES]-(i:Memory)
WHERE i.kind = 'insight' AND i.status IN $live
WITH $part[id] AS p, i, count(DISTINCT m) AS covered
ORDER BY covered DESC, i.id
WITH p, collect({insight: i.id, covered: covered})[0] AS best
RETURN p, best.insight AS insight, best.covered AS covered
