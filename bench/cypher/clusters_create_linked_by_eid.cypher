UNWIND $rows AS r
MATCH (a) WHERE elementId(a) = r.a
MATCH (b) WHERE elementId(b) = r.b
CREATE (a)-[:LINKED {kind: r.kind}]->(b)
