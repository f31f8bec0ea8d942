// Digest ranking (issue 39): the live insights in the scope that cite any of the candidate
// memories in $ids (DERIVED_FROM, not reverted), each with the candidates it cites. An insight
// stands for its members: it ranks where the best of them would.
UNWIND $ids AS mid
MATCH (i:Memory {kind: 'insight'})-[r:DERIVED_FROM]->(:Memory {id: mid})
WHERE NOT coalesce(r.reverted, false) AND i.status IN $live
  AND ($namespace IS NULL OR i.namespace = $namespace) AND ($subject IS NULL OR i.subject = $subject)
WITH i, collect(mid) AS members
RETURN i {.id, .kind, .epistemic_status} AS insight, members
ORDER BY i.id
