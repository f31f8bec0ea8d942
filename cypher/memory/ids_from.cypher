// The memory ids in use among a generated id and its repeats ($bases: ids from
// graphcons.core.memory.new_memory_id; a repeat is <base>-<n>): admission gives a true repeat
// the first free one. STARTS WITH seeks the memory_id constraint's index.
UNWIND $bases AS base
MATCH (m:Memory)
WHERE m.id STARTS WITH base
RETURN base, collect(m.id) AS taken
