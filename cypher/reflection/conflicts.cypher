// A new profile statement that contradicts an existing one: both stay, linked for review.
UNWIND $pairs AS pair
MATCH (a:Memory {id: pair.new}), (b:Memory {id: pair.old})
MERGE (a)-[c:CONFLICTS_WITH]->(b)
  ON CREATE SET c.status = 'open', c.reasons = pair.reasons, c.score = pair.score, c.detected_at = $now,
                c.proposal_id = $proposal_id, c.source = 'reflection'
RETURN count(c) AS conflicts
