// The source episodes behind memory $id (the leaves of its provenance walk), with who
// recorded them and when, oldest first. For an episode itself: the episode.
//   :param id => 'ins-...'
MATCH (root:Memory {id: $id})
MATCH (root)-[:SUMMARIZES|DERIVED_FROM*0..8]->(leaf:Memory)
WHERE NOT (leaf)-[:SUMMARIZES|DERIVED_FROM]->(:Memory)
RETURN DISTINCT leaf.id AS id, leaf.kind AS kind, leaf.title AS title, leaf.sources AS sources,
       leaf.created_at AS created_at, leaf.status AS status
ORDER BY created_at, id
