// The scope of each memory of a deferred batch ($ids), in admission order (graphcons.store.linker).
UNWIND $ids AS id
MATCH (m:Memory {id: id})
RETURN m.id AS id, m.namespace AS namespace, m.subject AS subject
ORDER BY m.admitted_at, m.id
