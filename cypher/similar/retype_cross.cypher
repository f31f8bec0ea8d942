// `graphcons migrate similar`: SIMILAR edges of memory $id that join two subjects (or
// namespaces) become SIMILAR_ACROSS with the same properties. Clustering only fuses SIMILAR,
// so other subjects stop taking part, and nothing that was computed is lost.
MATCH (m:Memory {id: $id})-[s:SIMILAR]-(n:Memory)
WHERE n.subject <> m.subject OR n.namespace <> m.namespace
WITH s, startNode(s) AS a, endNode(s) AS b, properties(s) AS props
CREATE (a)-[x:SIMILAR_ACROSS]->(b)
SET x = props, x.retyped_at = $now
DELETE s
RETURN count(x) AS retyped
