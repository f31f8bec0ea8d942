// The deferred memories $ids have their SIMILAR edges now (graphcons.store.linker).
UNWIND $ids AS id
MATCH (m:Memory {id: id})
REMOVE m.similar_pending
RETURN count(m) AS settled
