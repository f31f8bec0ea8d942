// Reflections attempted in one UTC day in one namespace ('reflect' audit records whose first
// target is the profile key namespace/subject), for [reflection] namespace_daily_cap.
MATCH (a:Audit {op: 'reflect'})
WHERE a.at >= $start AND a.at < $end AND a.targets[0] STARTS WITH $prefix
RETURN count(a) AS n
