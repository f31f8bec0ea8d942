// The stored community (latest scan, cypher/clusters/communities_store.cypher) of each candidate.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.community IS NOT NULL
RETURN m.id AS id, m.community AS community, m.community_size AS size
