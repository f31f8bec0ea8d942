// Seed 003's insight quality: of the insights someone rated, how many are rated useful
// more often than wrong.
MATCH (m:Memory {kind: 'insight'})
WHERE coalesce(m.feedback_useful, 0) + coalesce(m.feedback_wrong, 0) > 0
RETURN count(m) AS rated, count(CASE WHEN m.feedback_useful > coalesce(m.feedback_wrong, 0) THEN 1 END) AS useful
