// Weighted label propagation over the fused graph (bounded iterations, concurrency 1).
// Raw community ids follow internal node ids, so Python names each community by its sorted
// members and drops singletons (graphcons.consolidation.communities).
// Each node comes with what the gate needs to know about it (issue 15: read here, while the
// node is at hand, instead of a second query over every member) and its node id, which the
// gate's figures join with the projected edges. Columns, not rows (issue 15): one list per
// field in a single row decodes several times faster than a record or a list per member
// (1M memories: ~5 s against ~13 s). collect() skips nulls, so the fields that may be null
// travel together in one small list per node (`text`: namespace, subject, scope, title).
CALL gds.labelPropagation.stream($graph_name, $config)
YIELD nodeId, communityId
WITH nodeId, communityId, gds.util.asNode(nodeId) AS m
RETURN collect(communityId) AS community, collect(nodeId) AS node, collect(m.id) AS id,
       collect([m.namespace, m.subject, m.scope, m.title]) AS text,
       collect(coalesce(m.access_count, 0)) AS access_count,
       collect(toFloat(coalesce(m.activation, 0.0))) AS activation, collect(coalesce(m.version, 1)) AS version
