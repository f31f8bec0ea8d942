// Record that `replacement` replaces `id`: (replacement)-[:SUPERSEDES]->(memory).
// Only an active replacement in the same namespace counts; doing it twice is a no-op.
MATCH (r:Memory {id: $replacement}), (m:Memory {id: $id})
WHERE r.status = 'active' AND r.namespace = m.namespace AND r.id <> m.id
MERGE (r)-[s:SUPERSEDES {reason: 'replacement', reverted: false}]->(m)
  ON CREATE SET s.at = $now, s.run_id = $run_id, s.by = $by
RETURN r.id AS replacement
