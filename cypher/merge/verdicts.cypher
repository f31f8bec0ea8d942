// The llm verifier's earlier verdicts on one pair (one 'merge_verdict' audit record per call),
// newest first: a pair judged at the same versions by the same model is not asked again.
MATCH (a:Audit {op: 'merge_verdict'})
WHERE $key IN a.targets
RETURN a.details AS details
ORDER BY a.at DESC, a.id
LIMIT 20
