// The neighbourhood of memory $id up to $depth hops over graphcons relationships (either
// direction), nearest first, at most $limit memories.
MATCH (root:Memory {id: $id})
MATCH p = (root)-[:SIMILAR|LINKED|CO_ACCESSED|SUMMARIZES|DERIVED_FROM|SUPERSEDES|CONFLICTS_WITH*0..5]-(m:Memory)
WHERE length(p) <= $depth
WITH m, min(length(p)) AS hops
RETURN m.id AS id ORDER BY hops, id LIMIT $limit
