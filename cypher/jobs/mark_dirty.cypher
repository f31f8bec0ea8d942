// Admission's one extra write (inside its own transaction): count new memories per
// (namespace, subject), so triggers make merge / promote / consolidate due early.
MERGE (d:DirtyMark {key: $namespace + '|' + $subject})
  ON CREATE SET d.namespace = $namespace, d.subject = $subject, d.count = 0, d.first_at = $now
SET d.count = d.count + 1, d.last_at = $now
