// The audit record of one cluster scan (principle 9): when, settings, counts, duration.
// Its communities are stored on the members (communities_store.cypher), derived data.
CREATE (r:ConsolidationRun {
  id: $id, op: 'cluster_scan', at: $at, finished_at: $finished_at, duration_ms: $duration_ms,
  algorithm: $algorithm, dry_run: $dry_run, namespace: $namespace, subjects: $subjects, settings: $settings,
  nodes: $nodes, relationships: $relationships, clusters: $clusters, decisions: $decisions,
  accepted: $accepted, rejected: $rejected, consolidation_due: $consolidation_due,
  accepted_keys: $accepted_keys, warnings: $warnings
})
RETURN r.id AS id
