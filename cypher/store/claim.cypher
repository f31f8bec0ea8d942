// First init records the embedder; later calls return what was recorded.
MERGE (s:GraphconsStore {key: 'store'})
  ON CREATE SET s.embedding_model = $embedding_model, s.embedding_dimensions = $embedding_dimensions,
                s.created_at = $now
RETURN s {.*} AS store
