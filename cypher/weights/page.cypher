// One page of live memories (by id; of one namespace, or all when $namespace is null) with what
// the weight formula reads.
MATCH (m:Memory)
WHERE m.status IN $live AND ($after IS NULL OR m.id > $after)
  AND ($namespace IS NULL OR m.namespace = $namespace)
WITH m ORDER BY m.id LIMIT $limit
RETURN m.id AS id, m.weight_manual AS weight_manual, m.weight_confidence AS weight_confidence,
       m.weight_feedback AS weight_feedback, m.weight_usage AS weight_usage, m.weight_decay AS weight_decay,
       m.effective_weight AS effective_weight, m.stability AS stability,
       coalesce(m.access_count, 0) AS access_count, m.last_accessed AS last_accessed, m.created_at AS created_at
