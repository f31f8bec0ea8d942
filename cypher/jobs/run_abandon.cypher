// The new lease holder settles runs of its job that are still 'running': their worker died
// (kill -9) or lost Neo4j mid-run. Nothing they wrote is undone: every write was its own
// transaction, and the job resumes idempotently.
MATCH (r:JobRun {job: $job, status: 'running'})
SET r.status = 'abandoned', r.finished_at = datetime.statement(), r.error = $error
RETURN r.run_id AS run_id
