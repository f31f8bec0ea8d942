// Where insight $id does not hold (seed 002): each scoped exception, its scope, and whether it
// is supported (defeats the insight inside the scope) or contested (the scope is uncertain).
//   :param id => 'ins-...'
MATCH (e:Memory)-[x:EXCEPTION_TO]->(i:Memory {id: $id})
RETURN i.id AS insight, e.id AS exception, e.title AS title, x.scope AS scope, x.status AS status,
       x.reason AS reason, x.version AS rests_on_version, e.version AS current_version, x.at AS at, x.by AS by
ORDER BY exception, scope
