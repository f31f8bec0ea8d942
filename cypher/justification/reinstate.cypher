// The reverse of a retirement (a merge reverted, a memory restored, a conflict closed): a
// premise lost because of the memory's STATUS (not a new version: an edit is never undone,
// the justification rested on the exact old text) holds again when the memory is live, at
// the recorded version and in no open conflict; a justification whose required premises
// all hold again stands again, unless its proposal was reverted (justification/withdraw_proposal).
UNWIND $ids AS mid
MATCH (j:Justification)-[p:PREMISE {status: 'lost'}]->(m:Memory {id: mid})
WHERE p.lost_op IN ['merge', 'deprecate', 'archive', 'conflict'] AND m.version = p.version AND m.status IN $live
  AND NOT EXISTS { (m)-[c:CONFLICTS_WITH]-(:Memory) WHERE c.status = 'open' }
SET p.status = 'holding', p.reinstated_at = $now, p.reinstated_cause = $cause
WITH DISTINCT j
WITH j, j.status AS before
SET j.status = CASE WHEN coalesce(j.reverted, false) OR EXISTS { (j)-[q:PREMISE {status: 'lost', required: true}]->() }
                    THEN j.status
                    ELSE 'standing' END
SET j.reinstated_at = CASE WHEN before = 'withdrawn' AND j.status = 'standing' THEN $now ELSE j.reinstated_at END
RETURN j.insight_id AS insight_id, j.id AS justification, j.kind AS kind, before, j.status AS after
ORDER BY insight_id, justification
