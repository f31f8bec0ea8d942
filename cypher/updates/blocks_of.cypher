// The blocks of an incremental update pass (issue 62): only the (namespace, subject) scopes that
// admissions marked dirty since the job last ran, each read by its index (memory_scope), instead of
// every memory of the store (memory/blocks). A block is the one memory/blocks returns for its scope
// (an update never crosses a namespace or a subject), so the pass finds the same updates in it.
UNWIND $scopes AS s
MATCH (m:Memory {namespace: s.namespace, subject: s.subject})
WHERE m.status IN $live
WITH m.namespace AS namespace, m.subject AS subject, count(m) AS size
WHERE size >= 2
RETURN namespace, subject, size
ORDER BY namespace, subject
