// How many memories the target database holds (the benchmark needs an empty one).
MATCH (m:Memory) RETURN count(m) AS n
