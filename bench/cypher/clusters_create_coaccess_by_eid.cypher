UNWIND $rows AS r
MATCH (a) WHERE elementId(a) = r.a
MATCH (b) WHERE elementId(b) = r.b
CREATE (a)-[:CO_ACCESSED {count: r.v}]->(b)
