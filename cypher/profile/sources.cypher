// "How do you know that about this entity?": each current profile entry with the memories
// it rests on (one row per entry; paste into the Browser with the two parameters set).
MATCH (p:Profile {namespace: $namespace, subject: $subject})-[h:HOLDS {current: true}]->(s:Memory)
OPTIONAL MATCH (s)-[d:DERIVED_FROM]->(src:Memory)
WHERE d.reverted_at IS NULL
WITH p, s, src ORDER BY src.id
RETURN s.kind AS category, s.content AS statement, s.id AS memory_id, s.source_count AS source_count,
       collect(src {.id, .kind, .content, .status, .created_at}) AS sources
ORDER BY category, memory_id
