// One entity's profile (current version), by key = namespace + '/' + subject. `retired`: its
// entries whose statement memory is no longer live (merged, deprecated, archived, reverted), with
// that memory's status: a profile never shows a retired statement as current (issue 50).
MATCH (p:Profile {key: $key})
RETURN p {.*, retired: COLLECT { UNWIND coalesce(p.memory_ids, []) AS mid
                                 MATCH (s:Memory {id: mid}) WHERE NOT s.status IN $live
                                 RETURN {id: s.id, status: s.status} }} AS profile
