// A reverted proposal's standing justifications are withdrawn (kept, with the cause): the
// statements they justified no longer rest on that proposal's derivation.
MATCH (j:Justification {proposal_id: $proposal_id, status: 'standing'})
SET j.status = 'withdrawn', j.withdrawn_at = $now, j.withdrawn_cause = $cause
RETURN j.id AS id, j.insight_id AS insight_id
ORDER BY id
