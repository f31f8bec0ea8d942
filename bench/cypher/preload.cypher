// Benchmarks only: writes prepared memories (with their embeddings) in one batch,
// each with its first version, so a large store exists before admissions are timed.
UNWIND $rows AS row
CREATE (m:Memory)
SET m = row.props
WITH m, row
CALL db.create.setNodeVectorProperty(m, 'embedding', row.props.embedding)  // as the product stores it (32-bit)
CREATE (m)-[:VERSION]->(v:MemoryVersion)
SET v = row.version
RETURN count(m) AS written
