// SIMILAR edges of one namespace that the fused graph uses (score >= $floor), counted by
// whether both ends share a subject (bench/clusters/quality.py).
MATCH (a:Memory {namespace: $namespace})-[r:SIMILAR]->(b:Memory {namespace: $namespace})
WHERE r.score >= $floor
RETURN sum(CASE WHEN a.subject = b.subject THEN 1 ELSE 0 END) AS within, count(r) AS total
