MATCH (a:Audit)
WHERE ($op IS NULL OR a.op = $op) AND ($target IS NULL OR $target IN a.targets)
RETURN a {.*} AS audit
ORDER BY a.at DESC, a.id
LIMIT $limit
