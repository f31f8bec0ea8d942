// bench/retrieval/longmemeval.py: the chat session of each memory a context cites.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
RETURN m.id AS id, m.session AS session
