// Admission: the memory and its first version snapshot. SIMILAR edges are chosen next,
// in the same transaction, by graphcons.store.neighbours (cypher/similar/).
CREATE (m:Memory)
SET m = $props
WITH m
CALL db.create.setNodeVectorProperty(m, 'embedding', $embedding)  // 32-bit floats: see core.memory.without_embedding
CREATE (m)-[:VERSION]->(v:MemoryVersion)
SET v = $version_props
RETURN m.id AS id
