// Current version and status of each member (null version: the memory does not exist).
UNWIND $ids AS id
OPTIONAL MATCH (m:Memory {id: id})
RETURN id, m.version AS version, m.status AS status
ORDER BY id
