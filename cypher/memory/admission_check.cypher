// What admission must know before it embeds, in one read: the exact duplicate of each
// candidate ($keys: [{namespace, subject, content_hash}], the oldest one, as
// memory/find_duplicate), and which of $ids (explicit ids, link targets) already exist.
CALL () {
  UNWIND range(0, size($keys) - 1) AS i
  CALL (i) {
    WITH $keys[i] AS key
    MATCH (d:Memory {namespace: key.namespace, subject: key.subject, content_hash: key.content_hash})
    USING INDEX d:Memory(namespace, subject, content_hash)
    RETURN d.id AS id
    ORDER BY d.created_at, d.id
    LIMIT 1
  }
  RETURN collect([i, id]) AS duplicates
}
CALL () {
  UNWIND $ids AS id
  MATCH (m:Memory {id: id})
  RETURN collect(m.id) AS found
}
RETURN duplicates, found
