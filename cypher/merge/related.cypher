// A near paraphrase with a difference (the verifier did not call it a duplicate, yet the
// texts differ only in content one of them adds): linked RELATED for retrieval and review,
// never merged. Linking twice is a no-op.
MATCH (a:Memory {id: $a}), (b:Memory {id: $b})
MERGE (a)-[r:RELATED {source: 'merge'}]->(b)
  ON CREATE SET r.score = $score, r.p_duplicate = $p_duplicate, r.only_a = $only_a, r.only_b = $only_b,
                r.detected_at = $now, r.run_id = $run_id
RETURN r.source AS source
