// Syntheses attempted in one UTC day (each attempt is one 'synthesize' audit record),
// for the [consolidation] daily_cap.
MATCH (a:Audit {op: 'synthesize'})
WHERE a.at >= $start AND a.at < $end
RETURN count(a) AS n
