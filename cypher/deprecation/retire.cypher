// Deprecate (an active replacement exists) or archive (decayed below the retention
// threshold, no replacement). Nothing is deleted; the previous status is kept for restore.
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
WHERE m.status IN $statuses
SET m.status_before = m.status, m.status = row.status, m.retired_at = $now, m.retire_rule = row.rule,
    m.retire_run_id = $run_id,
    m.deprecated_at = CASE WHEN row.status = 'deprecated' THEN $now ELSE m.deprecated_at END,
    m.deprecated_reason = CASE WHEN row.status = 'deprecated' THEN 'replaced' ELSE m.deprecated_reason END,
    m.superseded_by = CASE WHEN row.status = 'deprecated' THEN row.replacement ELSE m.superseded_by END,
    m.archived_at = CASE WHEN row.status = 'archived' THEN $now ELSE m.archived_at END
RETURN m.id AS id, m.status_before AS before, m.status AS after
