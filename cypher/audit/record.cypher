// One audit record per operation: what ran, on what, with which settings, what changed.
CREATE (a:Audit {id: $id, op: $op, at: $at, run_id: $run_id, targets: $targets, details: $details})
RETURN a.id AS id
