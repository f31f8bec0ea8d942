// The members of a cluster as synthesis shows them (current version), in id order.
// A member id with no node comes back with found = false. `dated_at` is the time the input gave
// (created_at when it is not the admission clock): dates shown or written come only from the input.
UNWIND $ids AS id
OPTIONAL MATCH (m:Memory {id: id})
RETURN id, m IS NOT NULL AS found, m.title AS title, m.content AS content, m.kind AS kind,
       m.subject AS subject, m.metadata AS metadata, m.namespace AS namespace, m.source AS source, m.sources AS sources,
       m.created_at AS created_at,
       CASE WHEN m.created_at <> m.admitted_at THEN m.created_at END AS dated_at, m.version AS version, m.status AS status
ORDER BY id
