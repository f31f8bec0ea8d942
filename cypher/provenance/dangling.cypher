// Insights whose recorded provenance names a memory that does not exist, or that has no
// SUMMARIZES / DERIVED_FROM link to it (a dangling provenance chain). Empty is healthy.
MATCH (i:Memory {kind: 'insight'})
UNWIND coalesce(i.summarizes, []) + coalesce(i.derived_from, []) AS mid
WITH i, mid
WHERE NOT EXISTS { MATCH (i)-[:SUMMARIZES|DERIVED_FROM]->(:Memory {id: mid}) }
RETURN i.id AS insight, collect(DISTINCT mid) AS missing
ORDER BY insight
