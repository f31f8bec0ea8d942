// The second step of clusters/project: the directed relationship rows become one undirected
// edge per pair, its `weight` summed over the pair's relationships in either
// direction (concurrency 1: the same rows are summed in the same order), and the directed
// relationships are dropped, so the detectors see only the undirected fused graph.
CALL gds.beta.graph.relationships.toUndirected($graph_name,
  {relationshipType: '__ALL__', mutateRelationshipType: 'FUSED', aggregation: 'SUM', concurrency: 1})
YIELD relationshipsWritten
CALL gds.graph.relationships.drop($graph_name, '__ALL__')
YIELD deletedRelationships
RETURN relationshipsWritten AS relationships
