UNWIND $ids AS id
MATCH (p:Precomputed {insight_id: id})
RETURN p.insight_id AS insight_id, p.inferences AS inferences, p.insight_version AS version, p.computed_at AS computed_at
ORDER BY insight_id
