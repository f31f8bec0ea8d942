// bench/retrieval/answers.py: the insights consolidation created, their titles (what is embedded first).
MATCH (i:Memory {kind: 'insight'}) RETURN i.title AS title ORDER BY i.id
