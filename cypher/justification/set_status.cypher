// Store a re-derived epistemic status (and each exception's status) on an insight.
MATCH (i:Memory {id: $id})
SET i.epistemic_status = $status, i.epistemic_scopes = $scopes, i.epistemic_changed_at = $now
WITH i
CALL (i) {
  UNWIND $exceptions AS e
  MATCH (:Memory {id: e.memory_id})-[x:EXCEPTION_TO]->(i)
  SET x.status = e.status, x.reason = e.reason
  RETURN count(x) AS n
}
RETURN i.id AS id
