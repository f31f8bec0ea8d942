// llm verifier calls made in one UTC day (one 'merge_verdict' audit record each), for [merge] llm_daily_cap.
MATCH (a:Audit {op: 'merge_verdict'})
WHERE a.at >= $start AND a.at < $end
RETURN count(a) AS n
