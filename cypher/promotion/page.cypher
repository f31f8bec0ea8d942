// One page (by id) of proposed memories (of one namespace, or all when $namespace is null) with
// what the promotion rules read.
MATCH (m:Memory {status: 'proposed'})
WHERE ($after IS NULL OR m.id > $after) AND ($namespace IS NULL OR m.namespace = $namespace)
WITH m ORDER BY m.id LIMIT $limit
RETURN m.id AS id, m.kind AS kind, m.created_at AS created_at, m.effective_weight AS effective_weight,
       size(coalesce(m.sources, [])) AS distinct_sources,
       COUNT { (m)-[c:CONFLICTS_WITH]-(:Memory) WHERE c.status = 'open' } AS open_conflicts
ORDER BY m.id
