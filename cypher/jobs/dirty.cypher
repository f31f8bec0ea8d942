// Subjects with at least $threshold memories admitted since job $job last cleared them.
MATCH (d:DirtyMark)
OPTIONAL MATCH (c:DirtyCursor {id: $job + '|' + d.key})
WITH d, d.count - coalesce(c.seen, 0) AS pending
WHERE pending >= $threshold
RETURN d.key AS key, d.namespace AS namespace, d.subject AS subject, d.count AS count, pending
ORDER BY pending DESC, key
LIMIT $limit
