// merge/conflict for many pairs in one statement (the pass writes its decisions in batches).
UNWIND $rows AS row
MATCH (a:Memory {id: row.a}), (b:Memory {id: row.b})
MERGE (a)-[c:CONFLICTS_WITH]->(b)
  ON CREATE SET c.status = 'open', c.reasons = row.reasons, c.score = row.score, c.detected_at = $now,
                c.run_id = $run_id, c.source = 'merge', c.contests = row.contests
RETURN count(c) AS linked
