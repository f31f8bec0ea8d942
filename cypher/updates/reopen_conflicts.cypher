// Reverting an update reopens the conflicts its apply settled (issue 62), and only those: a conflict a
// person resolved stays resolved. What the settling wrote stays on the link, beside when it reopened.
MATCH (:Memory {id: $newer})-[c:CONFLICTS_WITH]-(:Memory {id: $older})
WHERE c.status = 'resolved' AND c.settled_by = 'update' AND c.update_proposal = $proposal_id
SET c.status = 'open', c.reopened_at = $now, c.reopened_by = $by, c.reopened_cause = 'update ' + $proposal_id + ' reverted'
RETURN elementId(c) AS conflict
