// Novelty for a set of candidate parts (graphcons.consolidation.figures): every live insight
// with the memories it SUMMARIZES in the parts' namespaces. As many rows as insights: a scan's
// cost follows the insights, not the members it gates (a map of every member to its part, sent
// as a parameter, cost ~1 s of a 1M-memory scan).
MATCH (i:Memory)-[:SUMMARIZES]->(m:Memory)
WHERE i.kind = 'insight' AND i.status IN $live AND m.namespace IN $namespaces
RETURN i.id AS insight, collect(DISTINCT m.id) AS members
