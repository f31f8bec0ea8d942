// Usage: access counts and last access on each memory, the session's USED edges, and
// one CO_ACCESSED increment per pair per session (pairs are stored low id -> high id).
MERGE (s:Session {id: $session})
  ON CREATE SET s.created_at = $now
SET s.last_used = $now
WITH s
CALL (s) {
  UNWIND $uses AS use
  MATCH (m:Memory {id: use.id})
  SET m.access_count = coalesce(m.access_count, 0) + 1, m.last_accessed = $now
  MERGE (s)-[u:USED]->(m)
    ON CREATE SET u.rank = use.rank, u.first_at = $now, u.count = 0
  SET u.count = u.count + 1
  RETURN count(*) AS touched
}
CALL () {
  UNWIND $pairs AS p
  MATCH (a:Memory {id: p[0]}), (b:Memory {id: p[1]})
  MERGE (a)-[c:CO_ACCESSED]->(b)
    ON CREATE SET c.count = 0, c.first_at = $now
  SET c.count = c.count + 1, c.last_at = $now
  RETURN count(*) AS pairs
}
RETURN touched, pairs
