// Record what synthesis did for one cluster: proposed, pending (budget spent), failed
// (provider error; stays pending for a later run), ungrounded (rejected), applied, reverted.
MERGE (t:SynthesisTask {cluster_key: $key})
  ON CREATE SET t.created_at = $now, t.attempts = 0
SET t.status = $status, t.reason = $reason, t.updated_at = $now, t.run_id = $run_id,
    t.membership_hash = coalesce($membership_hash, t.membership_hash),
    t.member_ids = coalesce($member_ids, t.member_ids),
    t.namespace = coalesce($namespace, t.namespace), t.subject = coalesce($subject, t.subject),
    t.proposal_id = coalesce($proposal_id, t.proposal_id),
    t.attempts = t.attempts + $attempt
RETURN t {.*} AS task
