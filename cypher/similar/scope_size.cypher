// How many memories share memory $id's namespace and subject: decides between the exact
// scan and the vector index (graphcons.store.neighbours).
MATCH (m:Memory {id: $id})
MATCH (n:Memory {namespace: m.namespace, subject: m.subject})
RETURN count(n) AS size
