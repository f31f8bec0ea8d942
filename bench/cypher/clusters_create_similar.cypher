UNWIND $rows AS r
MATCH (a:Memory {id: r.a}), (b:Memory {id: r.b})
CREATE (a)-[:SIMILAR {score: r.v}]->(b)
