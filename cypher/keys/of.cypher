// A memory's retrieval keys of its current version (graphcons.store.keys), in their place's order:
// what explain shows of how the memory can be found, with each key's provenance, in the text's order.
MATCH (m:Memory {id: $id})<-[:KEY_OF]-(k:Key)
WHERE k.version = m.version
RETURN k.id AS id, k.text AS text, k.source AS source, k.run AS run, k.created_at AS created_at
ORDER BY k.place, k.id
