// The subjects of $namespace a LangGraph namespace prefix covers (issue 63: a store search's first
// step): $subject itself and those nested under it ($subject + '/...'), each holding a live memory,
// in order. Two seeks of the (namespace, subject) index: the first stops at its first live memory,
// the second reads only nested subjects; memory/scopes reads every memory of the store.
CALL () {
  MATCH (m:Memory {namespace: $namespace, subject: $subject})
  WHERE m.status IN $live
  WITH m LIMIT 1
  RETURN m.subject AS subject
  UNION
  MATCH (m:Memory)
  WHERE m.namespace = $namespace AND m.subject STARTS WITH $subject + '/' AND m.status IN $live
  RETURN DISTINCT m.subject AS subject
}
RETURN subject
ORDER BY subject
