// Memories already used in a session, in the order they were first used.
MATCH (:Session {id: $session})-[u:USED]->(m:Memory)
RETURN m.id AS id, u.rank AS rank
ORDER BY u.rank
