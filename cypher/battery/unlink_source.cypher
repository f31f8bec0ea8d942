// BATTERY ONLY (`graphcons benchmark`, check "dangling provenance raises"); never used by the
// product. Removes every provenance link (SUMMARIZES and DERIVED_FROM) from one battery
// insight to one of its sources, as a store that lost them would look. Both ends must be in
// the battery's own namespace, 'graphcons-benchmark', or nothing matches. The battery runs
// it inside a transaction that it rolls back after the walk, so it is never committed.
MATCH (i:Memory {id: $insight, kind: 'insight'})-[r:SUMMARIZES|DERIVED_FROM]->(m:Memory {id: $source})
WHERE $namespace = 'graphcons-benchmark' AND i.namespace = $namespace AND m.namespace = $namespace
DELETE r
RETURN count(r) AS removed
