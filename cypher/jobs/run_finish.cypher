// Settle a job run: ok | failed | interrupted | abandoned (a killed worker's run, found by
// the worker that took its lease over), with its counts and error.
MATCH (r:JobRun {run_id: $run_id})
WHERE r.status = 'running'
SET r.status = $status, r.finished_at = datetime.statement(), r.counts = $counts, r.error = $error,
    r.duration_ms = duration.inSeconds(r.started_at, datetime.statement()).milliseconds
RETURN r.run_id AS run_id
