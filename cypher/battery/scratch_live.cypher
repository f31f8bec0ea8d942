// The live memories of the battery's scratch namespace (graphcons-benchmark-epistemics): the
// ones a finished `graphcons benchmark` run archives so that they stay out of scans and search.
MATCH (m:Memory {namespace: $namespace})
WHERE m.status IN $live
RETURN m.id AS id
ORDER BY id
