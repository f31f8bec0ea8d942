// Leiden over the fused graph (seeded, concurrency 1, resolution gamma in $config).
// Python names each community by its sorted members and drops singletons.
// Each node comes with what the gate needs to know about it and its node id, as columns in one
// row (see clusters/label_propagation: the same columns, read the same way).
CALL gds.leiden.stream($graph_name, $config)
YIELD nodeId, communityId
WITH nodeId, communityId, gds.util.asNode(nodeId) AS m
RETURN collect(communityId) AS community, collect(nodeId) AS node, collect(m.id) AS id,
       collect([m.namespace, m.subject, m.scope, m.title]) AS text,
       collect(coalesce(m.access_count, 0)) AS access_count,
       collect(toFloat(coalesce(m.activation, 0.0))) AS activation, collect(coalesce(m.version, 1)) AS version
