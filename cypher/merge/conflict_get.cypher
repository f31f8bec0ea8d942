// The conflict link between two memories, either direction.
MATCH (:Memory {id: $a})-[c:CONFLICTS_WITH]-(:Memory {id: $b})
RETURN c.status AS status
