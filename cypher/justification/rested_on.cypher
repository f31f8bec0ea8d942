// Does a live derived statement rest on this memory: an insight that summarises it, or a
// reflection's semantic memory derived from it (link not reverted)? Such a premise is never
// retired by a maintenance job on its own (seed 002: members remain available; issue 41).
MATCH (m:Memory {id: $id})
RETURN EXISTS { (i:Memory)-[s:SUMMARIZES|DERIVED_FROM]->(m) WHERE i.status IN $live AND s.reverted_at IS NULL }
       AS rested_on
