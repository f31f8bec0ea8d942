// Reflections attempted in one UTC day (one 'reflect' audit record each), for [reflection] daily_cap.
MATCH (a:Audit {op: 'reflect'})
WHERE a.at >= $start AND a.at < $end
RETURN count(a) AS n
