// Does a live insight rest on this memory (summarises it, link not reverted)? Such a member is
// never retired by a maintenance job on its own (seed 002: members remain available).
MATCH (m:Memory {id: $id})
RETURN EXISTS { (i:Memory)-[s:SUMMARIZES]->(m) WHERE i.status IN $live AND s.reverted_at IS NULL } AS rested_on
