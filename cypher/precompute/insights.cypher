// Live insights to precompute for (all, or the given ids), with their stored typed insight.
MATCH (i:Memory {kind: 'insight'})
WHERE i.status IN $live AND ($ids IS NULL OR i.id IN $ids)
OPTIONAL MATCH (p:Precomputed {insight_id: i.id})
RETURN i.id AS id, i.title AS title, i.version AS version, i.insight_json AS insight,
       i.subject AS subject, i.derived_from AS derived_from, p.insight_version AS done_version
ORDER BY i.id
