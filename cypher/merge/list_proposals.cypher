// Merge proposals, oldest first; $status null = every status.
MATCH (p:Proposal {kind: 'merge'})
WHERE $status IS NULL OR p.status = $status
RETURN p {.*} AS proposal
ORDER BY p.created_at, p.id
LIMIT $limit
