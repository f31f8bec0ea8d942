// After a scan of the whole store: up to $batch memories that an earlier scan put in a community
// and this one ($run) did not lose it. Run until it returns 0 (each call its own transaction).
MATCH (m:Memory)
WHERE m.community IS NOT NULL AND m.community_run <> $run
WITH m LIMIT $batch
SET m.community = null, m.community_size = null, m.community_run = null
RETURN count(m) AS cleared
