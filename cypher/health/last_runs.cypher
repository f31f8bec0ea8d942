// The last (non-dry) run of each maintenance job, from its audit records.
// A run of `graphcons jobs run X --now T` (JobRun trigger 'manual --now') is not the job's last run:
// T is a decision time given by hand, possibly in the future (jobs/worker.MANUAL_AT).
MATCH (a:Audit {op: 'maintenance_run'})
WHERE NOT EXISTS { MATCH (:JobRun {run_id: a.run_id, trigger: 'manual --now'}) }
UNWIND a.targets AS job
WITH job, a ORDER BY a.at DESC, a.id DESC
WITH job, head(collect(a)) AS last
RETURN job, last.at AS at, last.run_id AS run_id
ORDER BY job
