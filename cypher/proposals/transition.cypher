// Move a proposal of any kind from one status to the next (pending -> applied | rejected |
// stale, applied -> reverted); nothing happens unless it is in the expected status. Each
// step keeps who, when and why (applied_*, rejected_* + reason, reverted_* + revert_reason,
// stale_at + replaced_by); reviewed_by / reviewed_at name the last reviewer.
MATCH (p:Proposal {id: $id})
WHERE p.status = $expected
SET p.status = $status, p.reviewed_at = $now, p.reviewed_by = $by, p.review_run_id = $run_id,
    p.applied_at = CASE WHEN $status = 'applied' THEN $now ELSE p.applied_at END,
    p.applied_by = CASE WHEN $status = 'applied' THEN $by ELSE p.applied_by END,
    p.rejected_at = CASE WHEN $status = 'rejected' THEN $now ELSE p.rejected_at END,
    p.rejected_by = CASE WHEN $status = 'rejected' THEN $by ELSE p.rejected_by END,
    p.reason = CASE WHEN $status = 'rejected' THEN $reason ELSE p.reason END,
    p.reverted_at = CASE WHEN $status = 'reverted' THEN $now ELSE p.reverted_at END,
    p.reverted_by = CASE WHEN $status = 'reverted' THEN $by ELSE p.reverted_by END,
    p.revert_reason = CASE WHEN $status = 'reverted' THEN $reason ELSE p.revert_reason END,
    p.stale_at = CASE WHEN $status = 'stale' THEN $now ELSE p.stale_at END,
    p.replaced_by = coalesce($replaced_by, p.replaced_by),
    p.insight_id = coalesce($insight_id, p.insight_id)
RETURN p {.*} AS proposal
