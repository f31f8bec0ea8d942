// A person settles a conflict: which memory holds, where, why. Both memories stay as they are.
MATCH (:Memory {id: $a})-[c:CONFLICTS_WITH]-(:Memory {id: $b})
WHERE c.status = 'open'
SET c.status = 'resolved', c.holds = $holds, c.scope = $scope, c.note = $note, c.resolved_by = $by,
    c.resolved_at = $now
RETURN c.status AS status, c.holds AS holds, c.scope AS scope, c.note AS note
