MATCH (m:Memory {id: $id})
RETURN m {.*, embedding: null} AS memory
