// Novelty for every candidate part at once (issue 15; same definition as gate/figures): per
// part, the live insight that already SUMMARIZES the most of its members (ties: smallest id).
// $part maps each member id to its part's index; parts no insight covers are absent.
// Read from the insights' side: as many rows as SUMMARIZES edges, not one per member.
MATCH (i:Memory)-[:SUMMARIZES]->(m:Memory)
WHERE i.kind = 'insight' AND i.status IN $live AND $part[m.id] IS NOT NULL
WITH $part[m.id] AS p, i, count(DISTINCT m) AS covered
ORDER BY covered DESC, i.id
WITH p, collect({insight: i.id, covered: covered})[0] AS best
RETURN p, best.insight AS insight, best.covered AS covered
