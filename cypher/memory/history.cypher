// Every version of a memory, oldest first (the current one included).
MATCH (:Memory {id: $id})-[:VERSION]->(v:MemoryVersion)
RETURN v {.*} AS version
ORDER BY v.version
