// Seed 004's state machine: raw -> consolidated once a consolidation or reflection that
// covered the memory is applied. The memory stays addressable and searchable; the status
// it had and every proposal that consolidated it are kept (revert undoes one of them).
// Returns the highest importance among the memories (an insight keeps it).
UNWIND $ids AS id
MATCH (m:Memory {id: id})
SET m.consolidated_by = [x IN coalesce(m.consolidated_by, []) WHERE x <> $proposal_id] + $proposal_id,
    m.status_before = CASE WHEN m.status IN ['active', 'proposed'] THEN m.status ELSE m.status_before END,
    m.consolidated_at = CASE WHEN m.status IN ['active', 'proposed'] THEN $now ELSE m.consolidated_at END,
    m.status = CASE WHEN m.status IN ['active', 'proposed'] THEN 'consolidated' ELSE m.status END
RETURN count(m) AS marked, max(m.importance) AS max_importance
