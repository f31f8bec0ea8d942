// Which accepted cluster keys are already summarised by a live insight: one that carries the
// cluster_key itself, or one CREATED by an applied consolidation proposal for that key (issue 4).
// A reverted proposal deprecates its insight, so the cluster becomes due again; so does an
// insight that lost every justification (epistemic_status 'unsupported', issue 13).
CALL () {
  MATCH (i:Memory)
  WHERE i.cluster_key IN $keys AND i.kind = 'insight' AND i.status IN $live
    AND coalesce(i.epistemic_status, '') <> 'unsupported'
  RETURN i.cluster_key AS key
  UNION
  UNWIND $keys AS key
  MATCH (p:Proposal {cluster_key: key})-[:CREATED]->(j:Memory)
  WHERE p.status = 'applied' AND j.status IN $live AND coalesce(j.epistemic_status, '') <> 'unsupported'
  RETURN key
}
RETURN collect(DISTINCT key) AS keys
