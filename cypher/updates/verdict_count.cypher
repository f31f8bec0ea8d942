// Update verifier calls made in one UTC day (one 'update_verdict' audit record each), for
// [updates] llm_daily_cap.
MATCH (a:Audit {op: 'update_verdict'})
WHERE a.at >= $start AND a.at < $end
RETURN count(a) AS n
