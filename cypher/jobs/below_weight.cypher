// Live memories whose effective weight fell below the deprecation trigger.
MATCH (m:Memory)
WHERE m.status IN $live AND m.effective_weight < $weight
RETURN count(m) AS n
