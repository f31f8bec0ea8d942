// A job that ran clears the marks it saw (up to the counts it read at its start, so
// admissions during the run stay pending for the next one).
UNWIND $marks AS m
MERGE (c:DirtyCursor {id: $job + '|' + m.key})
  ON CREATE SET c.job = $job, c.key = m.key, c.seen = 0
SET c.seen = CASE WHEN m.count > c.seen THEN m.count ELSE c.seen END, c.cleared_at = $now, c.run_id = $run_id
RETURN count(c) AS cleared
