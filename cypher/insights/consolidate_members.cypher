// Approval, step 3 (seed 004): the members become `consolidated` (a state that persists; the
// previous status is kept for a revert) and the insight takes the highest importance among them.
MATCH (i:Memory {id: $insight_id})-[s:SUMMARIZES]->(m:Memory)
WHERE s.proposal_id = $proposal_id
WITH i, collect(m) AS members, max(coalesce(m.importance, 0.5)) AS importance
SET i.importance = importance, i.weight_manual = importance
WITH i, members
CALL (i, members) {
  UNWIND members AS m
  WITH m WHERE m.status IN ['active', 'proposed']
  SET m.status_before = m.status, m.status = 'consolidated', m.consolidated_at = $now, m.consolidated_into = i.id
  RETURN count(m) AS marked
}
RETURN i.importance AS importance, marked
