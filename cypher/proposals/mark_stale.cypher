// A pending proposal whose members changed is marked stale when it is re-synthesized
// (kept, with the proposal that replaces it).
MATCH (p:Proposal {id: $id})
WHERE p.status = 'pending'
SET p.status = 'stale', p.stale_at = $now, p.replaced_by = $replaced_by
RETURN p {.*} AS proposal
