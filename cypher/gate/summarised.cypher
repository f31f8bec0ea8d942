// Which accepted cluster keys already have a live insight recorded for them
// (an insight written by synthesis carries the cluster_key it summarises).
MATCH (i:Memory {kind: 'insight'})
WHERE i.cluster_key IN $keys AND i.status IN $live
RETURN collect(DISTINCT i.cluster_key) AS keys
