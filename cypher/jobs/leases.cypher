// Every lease with its holder (null when free) and whether it has expired.
MATCH (l:Lease)
RETURN l.job AS job, l.owner AS owner, l.run_id AS run_id, l.acquired_at AS acquired_at,
       l.expires_at AS expires_at, l.owner IS NOT NULL AND l.expires_at <= datetime.statement() AS expired,
       coalesce(l.takeovers, 0) AS takeovers
ORDER BY job
