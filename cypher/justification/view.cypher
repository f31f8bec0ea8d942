// An insight's justifications with their exact premises, and its scoped exceptions.
MATCH (i:Memory {id: $id})
CALL (i) {
  OPTIONAL MATCH (j:Justification)-[:JUSTIFIES]->(i)
  WITH j ORDER BY j.created_at, j.id
  RETURN collect(CASE WHEN j IS NULL THEN null ELSE j {.*, premises: COLLECT {
    MATCH (j)-[p:PREMISE]->(m:Memory)
    RETURN {id: m.id, version: p.version, required: p.required, status: p.status, lost_cause: p.lost_cause}
    ORDER BY m.id }} END) AS justifications
}
CALL (i) {
  OPTIONAL MATCH (e:Memory)-[x:EXCEPTION_TO]->(i)
  WITH e, x ORDER BY e.id, x.scope
  RETURN collect(CASE WHEN e IS NULL THEN null ELSE {memory_id: e.id, title: e.title, scope: x.scope,
    version: x.version, status: x.status, reason: x.reason} END) AS exceptions
}
RETURN i.kind AS kind, i.epistemic_status AS status, i.epistemic_scopes AS scopes, justifications, exceptions
