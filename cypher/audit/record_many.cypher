// audit/record for many operations of one run in one statement: one record each.
UNWIND $rows AS row
CREATE (a:Audit {id: row.id, op: row.op, at: $at, run_id: $run_id, targets: row.targets, details: row.details})
RETURN count(a) AS recorded
