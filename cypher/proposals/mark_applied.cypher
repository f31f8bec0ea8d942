// Approval, last step: the proposal is applied and names its insight.
MATCH (p:Proposal {id: $id})
WHERE p.status = 'pending'
SET p.status = 'applied', p.applied_at = $now, p.applied_by = $by, p.insight_id = $insight_id
RETURN p {.*} AS proposal
