// The members of a cluster as synthesis shows them (current version), in id order.
// A member id with no node comes back with found = false.
UNWIND $ids AS id
OPTIONAL MATCH (m:Memory {id: id})
RETURN id, m IS NOT NULL AS found, m.title AS title, m.content AS content, m.kind AS kind,
       m.subject AS subject, m.namespace AS namespace, m.source AS source, m.sources AS sources,
       m.created_at AS created_at, m.version AS version, m.status AS status
ORDER BY id
