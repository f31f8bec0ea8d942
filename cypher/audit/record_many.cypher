// Several audit records in one statement (batch admission: one per memory, in order).
UNWIND $records AS r
CREATE (a:Audit {id: r.id, op: r.op, at: r.at, run_id: r.run_id, targets: r.targets, details: r.details})
RETURN count(a) AS recorded
