// A store's put writes its memory's SIMILAR edges after it returns (issue 63): the memories still
// waiting for them are found by this index (graphcons.store.linker), not by reading every memory.
CREATE INDEX memory_similar_pending IF NOT EXISTS FOR (m:Memory) ON (m.similar_pending);
