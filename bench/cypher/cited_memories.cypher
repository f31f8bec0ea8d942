// The memories a context cites: their sources (dialogue turns, bench/retrieval/answers.py) and their
// chat session (bench/retrieval/longmemeval.py).
UNWIND $ids AS id
MATCH (m:Memory {id: id})
RETURN m.id AS id, coalesce(m.sources, []) AS sources, m.session AS session
