// The insights that these memories are scoped exceptions to (their status may change with them).
UNWIND $ids AS mid
MATCH (:Memory {id: mid})-[:EXCEPTION_TO]->(i:Memory)
RETURN DISTINCT i.id AS insight_id
ORDER BY insight_id
