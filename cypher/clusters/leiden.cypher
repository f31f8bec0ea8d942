// Leiden over the fused graph (seeded, concurrency 1, resolution gamma in $config).
// Singletons are dropped here, server-side; Python sorts members and names each cluster.
CALL gds.leiden.stream($graph_name, $config)
YIELD nodeId, communityId
WITH communityId, gds.util.asNode(nodeId) AS m
WITH communityId, collect(m.id) AS members, collect(DISTINCT m.namespace) AS namespaces,
     collect(DISTINCT m.subject) AS subjects
WHERE size(members) >= 2
RETURN members, namespaces, subjects
