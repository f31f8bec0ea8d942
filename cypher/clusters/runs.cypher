// The most recent cluster scans, newest first.
MATCH (r:ConsolidationRun)
RETURN r {.*} AS run
ORDER BY r.at DESC, r.id
LIMIT $limit
