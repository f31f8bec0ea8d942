// The applied merge that deprecated a memory, if any (its proposal id).
MATCH (:Memory)-[s:SUPERSEDES]->(m:Memory {id: $id})
WHERE s.reason = 'merge' AND NOT coalesce(s.reverted, false)
RETURN s.proposal AS proposal
ORDER BY s.at DESC, s.proposal
LIMIT 1
