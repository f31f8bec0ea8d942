// After a scan of one namespace ($subjects: of those subjects only, null = all): the same, read
// through the namespace / subject index.
MATCH (m:Memory)
WHERE m.namespace = $namespace AND ($subjects IS NULL OR m.subject IN $subjects)
  AND m.community IS NOT NULL AND m.community_run <> $run
WITH m LIMIT $batch
SET m.community = null, m.community_size = null, m.community_run = null
RETURN count(m) AS cleared
