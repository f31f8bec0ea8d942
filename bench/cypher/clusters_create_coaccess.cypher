UNWIND $rows AS r
MATCH (a:Memory {id: r.a}), (b:Memory {id: r.b})
CREATE (a)-[:CO_ACCESSED {count: r.v}]->(b)
