// The memories a ranking finally shows, read once: the ranking itself moves only each hit's
// head (id, kind, epistemic status), since reading every candidate's properties cost more than
// the index lookups at 100k memories (issue 28). Embeddings never leave the database.
MATCH (m:Memory) WHERE m.id IN $ids
RETURN m {.*, embedding: null} AS memory
