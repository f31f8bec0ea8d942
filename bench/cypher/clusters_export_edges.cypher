// The exported copy for networkx / igraph: the fused projection's weighted edges, each once.
CALL gds.graph.relationshipProperty.stream($graph_name, 'weight')
YIELD sourceNodeId, targetNodeId, propertyValue
WHERE sourceNodeId < targetNodeId
RETURN sourceNodeId AS s, targetNodeId AS t, propertyValue AS w
