// Leiden over the fused graph (seeded, concurrency 1, resolution gamma in $config).
// Singletons are dropped here, server-side; Python sorts members and names each cluster.
// Each member comes with what the gate needs to know about it (issue 15: read here, while
// the node is at hand, instead of a second query over every member), and its node id in the
// projection, which the gate's figures join with the projected edges (cypher/clusters/edges).
CALL gds.leiden.stream($graph_name, $config)
YIELD nodeId, communityId
WITH communityId, nodeId, gds.util.asNode(nodeId) AS m
WITH communityId, collect([m.id, m.namespace, m.subject, m.scope, m.kind, m.title, coalesce(m.access_count, 0),
                           toFloat(coalesce(m.activation, 0.0)), coalesce(m.version, 1), nodeId]) AS members
WHERE size(members) >= 2
RETURN members
