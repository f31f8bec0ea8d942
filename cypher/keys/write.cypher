// One batch of the keys pass (graphcons.store.keys): each memory's keys ($memories: id, version,
// keys [{id, text, embedding}]) written with their provenance ($run, $at, source 'sentence') and
// the version they were read from; the memory marked read in that version, keys or none. A key of
// an older version stays (nothing is deleted) but no longer counts: retrieval matches versions.
UNWIND $memories AS row
MATCH (m:Memory {id: row.id})
WHERE m.version = row.version  // edited since it was read: the next pass reads it again
SET m.keys_version = row.version
WITH m, row
UNWIND row.keys AS key
MERGE (k:Key {id: key.id})
  ON CREATE SET k.text = key.text, k.place = key.place, k.source = 'sentence', k.version = row.version, k.run = $run,
                k.created_at = $at, k.namespace = m.namespace, k.subject = m.subject
WITH m, k, key
CALL db.create.setNodeVectorProperty(k, 'embedding', key.embedding)
MERGE (k)-[:KEY_OF]->(m)
RETURN count(k) AS keys
