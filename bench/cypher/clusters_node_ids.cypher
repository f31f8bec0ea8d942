// Internal node id -> memory id, for mapping the exported edges.
MATCH (m:Memory {namespace: $namespace})
RETURN id(m) AS nid, m.id AS id
