// Retrieval keys (issue 61 item 2, graphcons.store.keys): a memory's sentences, each a (:Key) with its
// own embedding, found by the vector list as another way to its memory. Never a :Memory.
CREATE CONSTRAINT key_id IF NOT EXISTS FOR (k:Key) REQUIRE k.id IS UNIQUE;
CREATE VECTOR INDEX key_embedding IF NOT EXISTS FOR (k:Key) ON k.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine', `vector.quantization.enabled`: false}};
