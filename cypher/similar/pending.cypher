// Memories whose SIMILAR edges a put deferred (issue 63), in admission order, with their scope:
// linking them in this order, each to those admitted before it, gives the edges admission would
// have written.
MATCH (m:Memory)
WHERE m.similar_pending = true
RETURN m.id AS id, m.namespace AS namespace, m.subject AS subject
ORDER BY m.admitted_at, m.id
LIMIT $limit
