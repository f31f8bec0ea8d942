// Memory id -> element id of one namespace, so edges can be created by direct node lookup.
MATCH (m:Memory {namespace: $namespace})
RETURN m.id AS id, elementId(m) AS eid
