// The title and content of each of these memories (the gate's contrast check, consolidation/contrast.py).
UNWIND $ids AS id
MATCH (m:Memory {id: id})
RETURN m.id AS id, coalesce(m.title, '') AS title, coalesce(m.content, '') AS content
