// bench/retrieval/answers.py: retrieval keys (graphcons.store.keys) of the memories' current versions,
// and how many memories hold one.
MATCH (k:Key)-[:KEY_OF]->(m:Memory)
WHERE k.version = m.version
RETURN count(k) AS keys, count(DISTINCT m) AS keyed
