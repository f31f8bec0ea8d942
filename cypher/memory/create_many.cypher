// Batch admission (Graphcons.add_many): the memories and their first versions, in order.
// SIMILAR neighbours, links, dirty marks and audit records follow in the same transaction.
UNWIND $rows AS row
CREATE (m:Memory)
SET m = row.props
CREATE (m)-[:VERSION]->(v:MemoryVersion)
SET v = row.version_props
RETURN count(m) AS created
