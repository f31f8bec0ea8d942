// Conflicts found by the merge guard, newest first (`settled_by: 'update'`: an applied update settled it,
// `update_proposal` which; `reopened_at`: its revert reopened it, issue 62); $status null = every status,
// $namespaces null = every namespace (else both memories must lie within them).
MATCH (a:Memory)-[c:CONFLICTS_WITH]->(b:Memory)
WHERE ($status IS NULL OR c.status = $status)
  AND ($namespaces IS NULL OR (a.namespace IN $namespaces AND b.namespace IN $namespaces))
RETURN a.id AS a, b.id AS b, a.namespace AS namespace, a.content AS a_content, b.content AS b_content, c.status AS status,
       c.reasons AS reasons, c.score AS score, c.detected_at AS detected_at, c.holds AS holds,
       c.scope AS scope, c.note AS note, c.resolved_by AS resolved_by, c.resolved_at AS resolved_at,
       c.settled_by AS settled_by, c.update_proposal AS update_proposal, c.reopened_at AS reopened_at
ORDER BY c.detected_at DESC, a, b
LIMIT $limit
