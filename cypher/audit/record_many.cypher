// Several audit records in one statement, in order: one per memory of a batch admission, or one
// per decided pair of a merge pass (each row its own op, targets, time, run and details).
UNWIND $records AS r
CREATE (a:Audit {id: r.id, op: r.op, at: r.at, run_id: r.run_id, targets: r.targets, details: r.details})
RETURN count(a) AS recorded
