// A rejected proposal is kept, with who rejected it, when and why.
MATCH (p:Proposal {id: $id})
WHERE p.status = 'pending'
SET p.status = 'rejected', p.rejected_at = $now, p.rejected_by = $by, p.reason = $reason
RETURN p {.*} AS proposal
