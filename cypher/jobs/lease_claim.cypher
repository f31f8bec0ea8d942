// Claim a job's lease when it is free (never held, released) or expired, in one statement:
// the node's write lock is taken (set and removed: nothing changes) before its state is read,
// so two workers claiming together serialise and exactly one gets it. Expiry uses the
// server's clock, the one clock every worker shares. No row: someone else holds it.
MERGE (l:Lease {job: $job})
  ON CREATE SET l.created_at = datetime.statement(), l.takeovers = 0
SET l.locking = true
REMOVE l.locking
WITH l, l.owner AS previous, l.run_id AS previous_run, l.expires_at AS previous_expiry
WHERE l.owner IS NULL OR l.expires_at <= datetime.statement()
SET l.owner = $owner, l.token = $token, l.run_id = $run_id, l.acquired_at = datetime.statement(),
    l.renewed_at = datetime.statement(),
    l.expires_at = datetime.statement() + duration({milliseconds: $ttl_ms}),
    l.takeovers = coalesce(l.takeovers, 0) + CASE WHEN previous IS NULL THEN 0 ELSE 1 END
RETURN l.job AS job, previous AS taken_from, previous_run, previous_expiry
