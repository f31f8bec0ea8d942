// Benchmark only (bench/merge.py): bulk-write memories whose properties, embeddings
// included, were built by graphcons.admission.node_props; no SIMILAR edges, no versions.
UNWIND $rows AS row
CREATE (m:Memory)
SET m = row
RETURN count(m) AS created
