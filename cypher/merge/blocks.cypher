// The merge pass's blocks (issue 15): live memories grouped by namespace and subject, the
// only pairs merge ever compares. A block of one memory has no pair and is only counted.
// `$namespace` / `$subject` (null = all) limit the pass.
MATCH (m:Memory)
WHERE m.status IN $live AND m.embedding IS NOT NULL
  AND ($namespace IS NULL OR m.namespace = $namespace) AND ($subject IS NULL OR m.subject = $subject)
WITH m.namespace AS namespace, m.subject AS subject, collect(m.id) AS ids
RETURN namespace, subject, ids
