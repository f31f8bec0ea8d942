// Weighted label propagation over the fused graph (bounded iterations, concurrency 1).
// Raw community ids follow internal node ids, so Python renames each community by its
// smallest member id; singletons are dropped here, server-side.
CALL gds.labelPropagation.stream($graph_name, $config)
YIELD nodeId, communityId
WITH communityId, gds.util.asNode(nodeId) AS m
WITH communityId, collect(m.id) AS members, collect(DISTINCT m.namespace) AS namespaces,
     collect(DISTINCT m.subject) AS subjects
WHERE size(members) >= 2
RETURN members, namespaces, subjects
