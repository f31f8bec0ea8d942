// The newest run of each job (any status) and its newest settled one (ok or failed): the
// schedule counts from the settled one, so a killed or interrupted run is resumed at once.
// A manual run at a decision time given by hand (trigger 'manual --now', jobs/worker.MANUAL_AT) is
// shown as the last run but never settles the schedule: a run at a future --now must not push it.
MATCH (r:JobRun)
WITH r ORDER BY r.now DESC, r.started_at DESC
WITH r.job AS job, collect(r) AS runs
WITH job, head(runs) AS last,
     [x IN runs WHERE coalesce(x.trigger, '') <> 'manual --now'] AS scheduled
WITH job, last, head([x IN scheduled WHERE x.status IN ['ok', 'failed']]) AS settled,
     head([x IN scheduled WHERE x.status = 'ok']) AS ok
RETURN job, last {.run_id, .status, .now, .started_at, .finished_at, .worker, .error, .counts, .trigger} AS last,
       settled {.run_id, .status, .now, .finished_at} AS settled, ok {.run_id, .now, .finished_at} AS ok
ORDER BY job
