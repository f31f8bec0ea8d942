// `graphcons index rebuild`: drop the vector index (schema only; every embedding stays on its
// memory) before cypher/schema/03_vector.cypher creates it again from the stored embeddings.
DROP INDEX memory_embedding IF EXISTS
