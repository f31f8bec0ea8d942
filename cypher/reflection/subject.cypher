// Does this entity exist in the namespace, and how many of its memories still count toward
// reflection (unconsolidated, of the reflected kinds, not written by a consolidation)?
MATCH (m:Memory {namespace: $namespace, subject: $subject})
RETURN count(m) AS total,
       count(CASE WHEN m.status IN ['active', 'proposed'] AND m.kind IN $kinds
                   AND coalesce(m.source_type, '') <> 'consolidated' THEN 1 END) AS unconsolidated
