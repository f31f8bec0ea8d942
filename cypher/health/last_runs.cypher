// The last (non-dry) run of each maintenance job, from its audit records.
MATCH (a:Audit {op: 'maintenance_run'})
UNWIND a.targets AS job
WITH job, a ORDER BY a.at DESC, a.id DESC
WITH job, head(collect(a)) AS last
RETURN job, last.at AS at, last.run_id AS run_id
ORDER BY job
