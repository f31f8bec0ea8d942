// Job runs, newest first, optionally of one job.
MATCH (r:JobRun)
WHERE $job IS NULL OR r.job = $job
RETURN r {.*} AS run
ORDER BY r.started_at DESC
LIMIT $limit
