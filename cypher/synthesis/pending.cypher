// Clusters left pending by an earlier run (budget spent or provider failure), oldest first.
MATCH (t:SynthesisTask)
WHERE t.status IN ['pending', 'failed']
RETURN t {.*} AS task
ORDER BY t.updated_at, t.cluster_key
LIMIT $limit
