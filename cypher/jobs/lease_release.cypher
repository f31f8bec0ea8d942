// Give a lease back (only the holder can): the next claim needs no expiry.
MATCH (l:Lease {job: $job, token: $token})
SET l.owner = null, l.token = null, l.released_at = datetime.statement(), l.last_owner = $owner,
    l.last_run_id = l.run_id, l.run_id = null
RETURN l.job AS job
