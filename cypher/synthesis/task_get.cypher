// Synthesis bookkeeping of clusters: what was last done for each key, at which membership hash.
UNWIND $keys AS key
MATCH (t:SynthesisTask {cluster_key: key})
RETURN t {.*} AS task
