// The subject of each memory id (bench/clusters/quality.py).
UNWIND $ids AS id
MATCH (m:Memory {id: id})
RETURN m.id AS id, m.subject AS subject
