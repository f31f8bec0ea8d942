// A reverted proposal's justifications are withdrawn (kept, with the cause) and marked `reverted`:
// the insight or statements they justified no longer rest on that proposal's derivation, and no
// premise coming back (justification/reinstate) makes them stand again (issue 59). One already
// withdrawn by a lost premise is marked too; its first withdrawal's time and cause are kept.
MATCH (j:Justification {proposal_id: $proposal_id})
WHERE NOT coalesce(j.reverted, false)
WITH j, j.status AS before
SET j.reverted = true, j.reverted_at = $now, j.status = 'withdrawn',
    j.withdrawn_at = CASE WHEN before = 'standing' THEN $now ELSE j.withdrawn_at END,
    j.withdrawn_cause = CASE WHEN before = 'standing' THEN $cause ELSE j.withdrawn_cause END
RETURN j.id AS id, j.insight_id AS insight_id, before
ORDER BY id
