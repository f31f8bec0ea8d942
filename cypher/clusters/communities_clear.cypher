// A memory of the scanned scope that the latest scan put in no community keeps none from an
// earlier scan ($namespace / $subjects: the scan's scope, null = every namespace / subject).
MATCH (m:Memory)
WHERE m.community IS NOT NULL AND m.community_run <> $run
  AND ($namespace IS NULL OR m.namespace = $namespace) AND ($subjects IS NULL OR m.subject IN $subjects)
SET m.community = null, m.community_size = null, m.community_run = null
