// bench/retrieval/answers.py: the sources (dialogue turns) of the memories a context cites.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
RETURN m.id AS id, coalesce(m.sources, []) AS sources
