// How many insights have stored inferences (the benchmark checks retrieval adds none).
MATCH (p:Precomputed)
RETURN count(p) AS n
