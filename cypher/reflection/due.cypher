// Entities due for reflection (seed 004): unconsolidated memories per (namespace, subject)
// at or above the threshold of their scope: $entity_threshold for a specific entity,
// $namespace_threshold for the namespace-wide subjects. Consolidated memories no longer
// count, so thresholds are cumulative. Ordered by namespace, subject (deterministic).
MATCH (m:Memory)
WHERE ($namespace IS NULL OR m.namespace = $namespace)
  AND m.status IN ['active', 'proposed'] AND m.kind IN $kinds AND coalesce(m.source_type, '') <> 'consolidated'
WITH m.namespace AS namespace, m.subject AS subject, count(m) AS unconsolidated
WITH namespace, subject, unconsolidated, subject IN $namespace_subjects AS namespace_wide
WITH namespace, subject, unconsolidated, namespace_wide,
     CASE WHEN namespace_wide THEN $namespace_threshold ELSE $entity_threshold END AS threshold
WHERE unconsolidated >= threshold
RETURN namespace, subject, unconsolidated, threshold, namespace_wide
ORDER BY namespace, subject
