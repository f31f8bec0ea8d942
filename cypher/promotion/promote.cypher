// proposed -> active, recording the rule that fired; a memory no longer proposed is left alone.
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
WHERE m.status = 'proposed'
SET m.status = 'active', m.promoted_at = $now, m.promotion_rule = row.rule, m.promotion_run_id = $run_id
RETURN m.id AS id
