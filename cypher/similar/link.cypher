// Write the chosen SIMILAR edges from memory $id (score = exact cosine).
MATCH (m:Memory {id: $id})
UNWIND $neighbours AS nb
MATCH (n:Memory {id: nb.id})
MERGE (m)-[s:SIMILAR]->(n)
SET s.score = nb.score
RETURN count(s) AS linked
