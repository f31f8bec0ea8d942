// `graphcons migrate similar`: the next $limit memories not yet on neighbour scheme $scheme,
// in admission order (the order the rebuild replays).
MATCH (m:Memory)
WHERE coalesce(m.similar_scheme, '') <> $scheme
RETURN m.id AS id
ORDER BY m.admitted_at, m.id
LIMIT $limit
