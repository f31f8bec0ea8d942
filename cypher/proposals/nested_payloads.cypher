// Migration (issue 60), reversed: consolidate proposals keeping their payload under `payload`,
// one batch at a time.
MATCH (p:Proposal {kind: $kind})
WHERE p.payload IS NOT NULL
RETURN p.id AS id, p.payload AS payload
ORDER BY p.id
LIMIT $batch
