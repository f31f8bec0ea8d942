// How many memories a weight pass will visit (for the progress bar).
MATCH (m:Memory) WHERE m.status IN $live
RETURN count(m) AS n
