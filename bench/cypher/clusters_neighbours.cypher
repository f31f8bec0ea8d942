// Graphiti-style: one neighbour query per node, weights summed in Python.
MATCH (n:Memory {id: $id})-[r:SIMILAR|LINKED|CO_ACCESSED]-(m:Memory)
RETURN m.id AS id, type(r) AS type, r.score AS score, r.kind AS kind, r.count AS count
