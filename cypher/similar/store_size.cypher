// Memories in the store: the widest pool the vector index can return.
MATCH (n:Memory) RETURN count(n) AS size
