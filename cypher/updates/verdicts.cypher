// The update verifier's earlier verdicts on one pair (one 'update_verdict' audit record per call, its
// first target the pair's proposal id), newest first: a pair judged at the same versions by the same
// model is not asked again.
MATCH (a:Audit {op: 'update_verdict'})
WHERE $key IN a.targets
RETURN a.details AS details
ORDER BY a.at DESC, a.id
LIMIT 20
