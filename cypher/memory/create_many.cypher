// Batch admission (Graphcons.add_many): the memories and their first versions, in order.
// SIMILAR neighbours, links, dirty marks and audit records follow in the same transaction.
UNWIND $rows AS row
CREATE (m:Memory)
SET m = row.props
WITH m, row
CALL db.create.setNodeVectorProperty(m, 'embedding', row.embedding)  // 32-bit floats: see core.memory.without_embedding
CREATE (m)-[:VERSION]->(v:MemoryVersion)
SET v = row.version_props
RETURN count(m) AS created
