// The projected fused graph's edges, each undirected pair once (issue 15: the gate's figures are
// computed from these, not from a second walk over the store's edges). Node ids are the ones the
// detectors stream (Neo4j node ids); `weight` is the fused weight, `coaccess` the pair's
// CO_ACCESSED count. Parallel lists in one row (one value each, no record per edge): the
// procedure streams each relationship's properties one after the other, so the i-th weight and
// the i-th coaccess belong to the same edge. Concurrency 1: the same graph, the same order.
CALL gds.graph.relationshipProperties.stream($graph_name, ['weight', 'coaccess'], ['*'], {concurrency: 1})
YIELD sourceNodeId, targetNodeId, relationshipProperty, propertyValue
WITH sourceNodeId, targetNodeId, relationshipProperty = 'weight' AS w, propertyValue
WHERE sourceNodeId < targetNodeId
RETURN collect(CASE WHEN w THEN sourceNodeId END) AS source, collect(CASE WHEN w THEN targetNodeId END) AS target,
       collect(CASE WHEN w THEN propertyValue END) AS weight,
       collect(CASE WHEN NOT w THEN propertyValue END) AS coaccess
