// merge/related for many pairs in one statement (the pass writes its decisions in batches).
UNWIND $rows AS row
MATCH (a:Memory {id: row.a}), (b:Memory {id: row.b})
MERGE (a)-[r:RELATED {source: 'merge'}]->(b)
  ON CREATE SET r.score = row.score, r.p_duplicate = row.p_duplicate, r.only_a = row.only_a,
                r.only_b = row.only_b, r.detected_at = $now, r.run_id = $run_id
RETURN count(r) AS linked
