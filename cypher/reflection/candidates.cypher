// The most recent unconsolidated memories of one entity (newest first, ties by id), with
// their embeddings for the coverage selection. `dated_at`: the time the input gave (none when
// created_at is the admission clock), the only date a reflection may
// state. Memories a consolidation wrote never count.
MATCH (m:Memory {namespace: $namespace, subject: $subject})
WHERE m.status IN ['active', 'proposed'] AND m.kind IN $kinds AND coalesce(m.source_type, '') <> 'consolidated'
RETURN m.id AS id, m.title AS title, m.content AS content, m.kind AS kind, m.subject AS subject, m.metadata AS metadata,
       m.namespace AS namespace, m.source AS source, m.sources AS sources, m.created_at AS created_at,
       CASE WHEN m.created_at <> m.admitted_at THEN m.created_at END AS dated_at,
       m.version AS version, m.status AS status, m.embedding AS embedding
ORDER BY m.created_at DESC, m.id
LIMIT $recent
