// Batch admission's dirty marks: $marks = [{namespace, subject, count, first_at, last_at}],
// the same totals as one jobs/mark_dirty per memory.
UNWIND $marks AS mk
MERGE (d:DirtyMark {key: mk.namespace + '|' + mk.subject})
  ON CREATE SET d.namespace = mk.namespace, d.subject = mk.subject, d.count = 0, d.first_at = mk.first_at
SET d.count = d.count + mk.count, d.last_at = mk.last_at
