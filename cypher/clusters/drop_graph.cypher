// Drop the in-memory projection of one scan (GDS catalogue only; the stored graph is untouched).
CALL gds.graph.drop($graph_name, false) YIELD graphName
RETURN graphName
