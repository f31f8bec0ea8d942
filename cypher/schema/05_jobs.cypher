// Scheduled jobs (issue 10): one lease per job, one record per job run, one dirty mark per
// (namespace, subject) with one cursor per job that reads it, one synthesis budget per UTC day.
CREATE CONSTRAINT lease_job IF NOT EXISTS FOR (l:Lease) REQUIRE l.job IS UNIQUE;
CREATE CONSTRAINT job_run_id IF NOT EXISTS FOR (r:JobRun) REQUIRE r.run_id IS UNIQUE;
CREATE INDEX job_run_job IF NOT EXISTS FOR (r:JobRun) ON (r.job, r.started_at);
CREATE CONSTRAINT dirty_mark_key IF NOT EXISTS FOR (d:DirtyMark) REQUIRE d.key IS UNIQUE;
CREATE CONSTRAINT dirty_cursor_id IF NOT EXISTS FOR (c:DirtyCursor) REQUIRE c.id IS UNIQUE;
CREATE CONSTRAINT synthesis_budget_day IF NOT EXISTS FOR (b:SynthesisBudget) REQUIRE b.day IS UNIQUE;
CREATE CONSTRAINT namespace_budget_key IF NOT EXISTS FOR (b:NamespaceBudget) REQUIRE b.key IS UNIQUE;
CREATE CONSTRAINT budget_reservation_id IF NOT EXISTS FOR (r:BudgetReservation) REQUIRE r.id IS UNIQUE;
