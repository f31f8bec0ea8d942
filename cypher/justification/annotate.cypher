// Epistemic fields of the insights among retrieval hits: status and scoped exceptions.
UNWIND $ids AS iid
MATCH (i:Memory {id: iid})
WHERE i.epistemic_status IS NOT NULL
RETURN i.id AS id, i.epistemic_status AS status, i.epistemic_scopes AS scopes
