// The dimension comes from the configured embedder ($dimensions). Quantization is off
// so that scores are exact cosines (the index reports (1 + cosine) / 2).
CREATE VECTOR INDEX memory_embedding IF NOT EXISTS FOR (m:Memory) ON m.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine', `vector.quantization.enabled`: false}};
