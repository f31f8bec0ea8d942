// Benchmark only (bench/merge/speed.py): bulk-write memories whose properties, embeddings
// included, were built by graphcons.admission.node_props; no SIMILAR edges, no versions.
UNWIND $rows AS row
CREATE (m:Memory)
SET m = row
WITH m, row
CALL db.create.setNodeVectorProperty(m, 'embedding', row.embedding)  // as the product stores it (32-bit)
RETURN count(m) AS created
