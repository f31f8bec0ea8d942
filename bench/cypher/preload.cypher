// Benchmarks only: writes prepared memories (with their embeddings) in one batch,
// each with its first version, so a large store exists before admissions are timed.
UNWIND $rows AS row
CREATE (m:Memory)
SET m = row.props
CREATE (m)-[:VERSION]->(v:MemoryVersion)
SET v = row.version
RETURN count(m) AS written
