// Stale memories (seed 003): old enough, weight under the floor, (almost) never accessed,
// not accessed or restored since the cutoff; with the active memory that SUPERSEDES each
// one, if any (reverted edges do not count, nor an update's: it replaces a value, not the memory; the
// smallest id when there are several).
// A member that a live insight rests on (SUMMARIZES, not reverted) is never a candidate (seed 002).
// $namespace: only that namespace's memories (null: every namespace).
MATCH (m:Memory)
WHERE m.status IN $statuses
  AND ($namespace IS NULL OR m.namespace = $namespace)
  AND coalesce(m.effective_weight, 0.0) < $max_weight
  AND coalesce(m.access_count, 0) <= $max_access
  AND m.created_at <= $cutoff
  AND (m.last_accessed IS NULL OR m.last_accessed <= $cutoff)
  AND (m.restored_at IS NULL OR m.restored_at <= $cutoff)
  AND NOT EXISTS { (i:Memory)-[sm:SUMMARIZES]->(m) WHERE i.status IN $live AND sm.reverted_at IS NULL }
OPTIONAL MATCH (r:Memory)-[s:SUPERSEDES]->(m)
WHERE r.status = 'active' AND NOT coalesce(s.reverted, false) AND coalesce(s.reason, '') <> 'update'
WITH m, r ORDER BY m.id, r.id
WITH m, collect(r.id) AS replacements
RETURN m.id AS id, m.status AS status, m.effective_weight AS effective_weight, m.created_at AS created_at,
       head(replacements) AS replacement
ORDER BY m.id
