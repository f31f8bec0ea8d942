// Write recomputed weight components (only rows that changed are sent).
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
SET m.weight_usage = row.weight_usage, m.weight_decay = row.weight_decay, m.stability = row.stability,
    m.effective_weight = row.effective_weight, m.weights_at = $now, m.weights_run = $run_id
RETURN count(m) AS updated
