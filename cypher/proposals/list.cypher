// The review queue: proposals of every kind (consolidate, merge, ...), oldest first.
MATCH (p:Proposal)
WHERE ($status IS NULL OR p.status = $status) AND ($kind IS NULL OR p.kind = $kind)
RETURN p {.*} AS proposal
ORDER BY p.created_at, p.id
LIMIT $limit
