// After a revert: a consolidated member that no other live insight summarises gets back the
// status it had before consolidation.
MATCH (i:Memory {id: $insight_id})-[:SUMMARIZES]->(m:Memory {status: 'consolidated'})
WHERE NOT EXISTS { (o:Memory)-[s:SUMMARIZES]->(m) WHERE o.id <> i.id AND o.status IN $live AND s.reverted_at IS NULL }
SET m.status = coalesce(m.status_before, 'active'), m.status_before = 'consolidated', m.released_at = $now
RETURN count(m) AS released
