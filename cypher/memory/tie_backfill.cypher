// Migration (issue 15): the stored tie weight of memories admitted before it existed, one
// batch at a time. Same formula as graphcons.store.tie.weight and clusters/project's fallback.
MATCH (m:Memory)
WHERE m.tie IS NULL
WITH m LIMIT $batch
SET m.tie = 1.0 + $tie_epsilon * reduce(h = 0, c IN split(m.id, '') | (h * 131 + coalesce($id_chars[c], 0)) % 1000003) / 1000003.0
RETURN count(m) AS n
