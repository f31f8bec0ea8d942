// What an insight's epistemic status is derived from: its justifications and its exceptions
// (with each exception memory's current state and open conflicts).
UNWIND $ids AS iid
MATCH (i:Memory {id: iid})
CALL (i) {
  OPTIONAL MATCH (j:Justification)-[:JUSTIFIES]->(i)
  WITH j ORDER BY j.id
  RETURN collect(j {.id, .kind, .status}) AS justifications
}
CALL (i) {
  OPTIONAL MATCH (e:Memory)-[x:EXCEPTION_TO]->(i)
  WITH e, x ORDER BY e.id
  RETURN collect(CASE WHEN e IS NULL THEN null ELSE
    {memory_id: e.id, scope: x.scope, recorded_version: x.version, version: e.version, memory_status: e.status,
     memory_epistemic: e.epistemic_status, status: x.status,
     conflicts: COLLECT { MATCH (e)-[c:CONFLICTS_WITH]-(o:Memory) WHERE c.status = 'open' RETURN o.id }} END)
     AS exceptions
}
RETURN i.id AS id, i.kind AS kind, i.cluster_key AS cluster_key, i.epistemic_status AS status,
       i.epistemic_scopes AS scopes, justifications, exceptions
