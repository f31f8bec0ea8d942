// The blocks of an incremental merge pass (issue 33): only the (namespace, subject) scopes
// that admissions marked dirty since the job last ran, each read by its index
// (memory_scope), instead of every memory of the store (merge/blocks). A block is the same
// block merge/blocks returns for its scope, so the pass decides the same pairs in it.
UNWIND $scopes AS s
MATCH (m:Memory {namespace: s.namespace, subject: s.subject})
WHERE m.status IN $live AND m.embedding IS NOT NULL
WITH m.namespace AS namespace, m.subject AS subject, collect(m.id) AS ids
RETURN namespace, subject, ids
