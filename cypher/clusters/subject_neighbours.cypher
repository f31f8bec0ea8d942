// One step of a triggered scan's subject closure (issue 33, graphcons.consolidation.closure):
// the other subjects of $namespace that a live memory of $frontier shares a fused-graph edge
// with (SIMILAR, LINKED, CO_ACCESSED; any weight: a superset of the projected edges keeps the
// closure a union of the graph's connected parts). Each frontier subject is read by its index
// (memory_scope); subjects already in $known are left out. A neighbour without a subject (a
// store written before subjects were required) cannot be selected by subject: `unscoped` says
// so and the caller scans the whole namespace.
UNWIND $frontier AS subject
MATCH (a:Memory {namespace: $namespace, subject: subject})
WHERE a.status IN $live
MATCH (a)-[:SIMILAR|LINKED|CO_ACCESSED]-(b:Memory)
WHERE b.namespace = $namespace AND b.status IN $live
  AND (b.subject IS NULL OR (b.subject <> subject AND NOT b.subject IN $known))
RETURN collect(DISTINCT b.subject) AS subjects, count(CASE WHEN b.subject IS NULL THEN 1 END) > 0 AS unscoped
