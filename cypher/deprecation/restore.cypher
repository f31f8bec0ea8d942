// Restore a deprecated or archived memory to the status it had; the SUPERSEDES edges that
// retired it are kept but marked reverted (retrieval then stops redirecting it); an update's edge retired
// nothing (issue 51) and stays as it is.
MATCH (m:Memory {id: $id})
WHERE m.status IN ['deprecated', 'archived']
WITH m, m.status AS was
CALL (m) {
  OPTIONAL MATCH (:Memory)-[s:SUPERSEDES]->(m)
  WHERE NOT coalesce(s.reverted, false) AND coalesce(s.reason, '') <> 'update'
  SET s.reverted = true, s.reverted_at = $now, s.reverted_run_id = $run_id
  RETURN count(s) AS edges
}
SET m.status = coalesce(m.status_before, 'active'), m.status_before = was, m.restored_at = $now,
    m.superseded_by = null
RETURN was, m.status AS status, edges
