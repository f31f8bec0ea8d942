// A scoped exception: (memory)-[:EXCEPTION_TO {scope (JSON), version}]->(insight). The
// exception rests on the memory's current version; adding the same one again is a no-op.
MATCH (e:Memory {id: $memory_id}), (i:Memory {id: $insight_id})
OPTIONAL MATCH (e)-[old:EXCEPTION_TO {scope: $scope}]->(i)
WITH e, i, old IS NULL AS created
MERGE (e)-[x:EXCEPTION_TO {scope: $scope}]->(i)
  ON CREATE SET x.version = e.version, x.status = 'supported', x.at = $now, x.by = $by, x.run_id = $run_id
RETURN x.version AS version, created
