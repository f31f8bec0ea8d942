// The review queue: proposals of every kind (consolidate, merge, ...), oldest first;
// $namespaces (a list, or null for all) limits it to an API token's namespaces.
MATCH (p:Proposal)
WHERE ($status IS NULL OR p.status = $status) AND ($kind IS NULL OR p.kind = $kind)
  AND ($namespaces IS NULL OR p.namespace IN $namespaces)
RETURN p {.*} AS proposal
ORDER BY p.created_at, p.id
LIMIT $limit
