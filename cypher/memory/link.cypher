// Explicit links: (a)-[:LINKED {kind}]->(b); linking twice with the same kind is a no-op.
UNWIND $links AS l
MATCH (a:Memory {id: $id}), (b:Memory {id: l.target})
MERGE (a)-[r:LINKED {kind: l.kind}]->(b)
  ON CREATE SET r.created_at = $now, r.source = $source
RETURN count(r) AS linked
