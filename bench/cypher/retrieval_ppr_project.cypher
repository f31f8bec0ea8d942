// bench/retrieval/latency.py --ppr: the per-query projection personalised PageRank would need
// (HippoRAG-style), scoped to one namespace: its live memories and the edges among them.
MATCH (a:Memory {namespace: $namespace})
OPTIONAL MATCH (a)-[r:SIMILAR|LINKED|CO_ACCESSED|SUMMARIZES]->(b:Memory {namespace: $namespace})
WITH gds.graph.project($name, a, b, {}, {undirectedRelationshipTypes: ['*']}) AS g
RETURN g.nodeCount AS nodes, g.relationshipCount AS relationships
