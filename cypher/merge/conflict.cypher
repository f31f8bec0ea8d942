// A pair that looks like a duplicate but contradicts itself (negation, numbers, dates,
// names) is linked for review instead of merged; linking twice is a no-op. `contests`: the
// texts are near-identical, so the link contests what an insight rests on (seed 002).
MATCH (a:Memory {id: $a}), (b:Memory {id: $b})
MERGE (a)-[c:CONFLICTS_WITH]->(b)
  ON CREATE SET c.status = 'open', c.reasons = $reasons, c.score = $score, c.detected_at = $now,
                c.run_id = $run_id, c.source = 'merge', c.contests = $contests
RETURN c.status AS status
