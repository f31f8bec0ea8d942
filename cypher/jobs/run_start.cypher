// A job run begins (under its lease): status 'running' until run_finish settles it.
CREATE (r:JobRun {run_id: $run_id, job: $job, worker: $worker, now: $now, trigger: $trigger,
                  started_at: datetime.statement(), status: 'running'})
RETURN r.run_id AS run_id
