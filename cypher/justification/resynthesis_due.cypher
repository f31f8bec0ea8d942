// An insight became unsupported: its cluster's synthesis task is due again (seed 002), so
// the next consolidation pass re-synthesizes it from the members' current versions. Not for an
// insight no longer live: a reverted one is unsupported because a reviewer undid it (issue 59).
MATCH (i:Memory {id: $insight_id})
WHERE i.cluster_key IS NOT NULL AND i.status IN $live
MERGE (t:SynthesisTask {cluster_key: i.cluster_key})
  ON CREATE SET t.created_at = $now, t.attempts = 0, t.namespace = i.namespace, t.subject = i.subject
SET t.status = 'due', t.reason = $reason, t.updated_at = $now, t.unsupported_insight = i.id
RETURN t.cluster_key AS cluster_key
