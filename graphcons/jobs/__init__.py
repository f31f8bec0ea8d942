"""Layer 4: scheduled jobs (issue 10): the job table, when each job is due, and the worker that runs
due jobs under their Neo4j leases. Above consolidation, maintenance and profiles (it runs them)."""
