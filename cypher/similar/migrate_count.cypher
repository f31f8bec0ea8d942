// `graphcons migrate similar`: memories not yet on neighbour scheme $scheme.
MATCH (m:Memory)
WHERE coalesce(m.similar_scheme, '') <> $scheme
RETURN count(m) AS pending
