// The vector index's state for `graphcons health` (SHOW INDEXES; segments are not visible here).
SHOW INDEXES YIELD name, type, state, populationPercent, options
WHERE name = $name AND type = 'VECTOR'
RETURN name, state, populationPercent AS population, options.indexConfig['vector.dimensions'] AS dimensions
