// Revert of a consolidation or reflection: the proposal no longer consolidates these
// memories; a memory no other applied proposal consolidates gets its earlier status back.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE $proposal_id IN coalesce(m.consolidated_by, [])
SET m.consolidated_by = [x IN m.consolidated_by WHERE x <> $proposal_id]
WITH m, m.status = 'consolidated' AND size(m.consolidated_by) = 0 AS restore
SET m.status = CASE WHEN restore THEN coalesce(m.status_before, 'active') ELSE m.status END,
    m.status_before = CASE WHEN restore THEN 'consolidated' ELSE m.status_before END,
    m.unconsolidated_at = CASE WHEN restore THEN $now ELSE m.unconsolidated_at END
RETURN count(CASE WHEN restore THEN 1 END) AS restored
