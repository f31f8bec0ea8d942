MATCH (m:Memory {id: $id})
RETURN m.id AS id, m.status AS status, m.deprecated_reason AS deprecated_reason, m.namespace AS namespace
