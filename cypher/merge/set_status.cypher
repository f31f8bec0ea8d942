// Move a merge proposal from one status to the next (pending -> applied | rejected,
// applied -> reverted); nothing happens when it is not in the expected status.
MATCH (p:Proposal {id: $id, kind: 'merge'})
WHERE p.status = $expected
SET p.status = $status, p.reviewed_at = $now, p.reviewed_by = $by, p.review_run_id = $run_id
RETURN p {.*} AS proposal
