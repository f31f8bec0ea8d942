// Memories outside the benchmark's own namespaces (bench<size>, benchwarmup, ref-*).
MATCH (m:Memory)
WHERE NOT (m.namespace STARTS WITH 'bench' OR m.namespace STARTS WITH 'ref-')
RETURN count(m) AS n
