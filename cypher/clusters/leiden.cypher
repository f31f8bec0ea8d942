// Leiden over the fused graph (seeded, concurrency 1, resolution gamma in $config).
// Singletons are dropped here, server-side; Python sorts members and names each cluster.
// Each member comes with what the gate needs to know about it (issue 15: read here, while
// the node is at hand, instead of a second query over every member).
CALL gds.leiden.stream($graph_name, $config)
YIELD nodeId, communityId
WITH communityId, gds.util.asNode(nodeId) AS m
WITH communityId, collect([m.id, m.namespace, m.subject, m.scope, m.kind, m.title, coalesce(m.access_count, 0),
                           toFloat(coalesce(m.activation, 0.0)), coalesce(m.version, 1)]) AS members
WHERE size(members) >= 2
RETURN members
