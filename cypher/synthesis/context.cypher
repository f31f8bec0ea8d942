// Known conflicts and exceptions of a cluster (seed 002): memories outside it, in the same
// namespace, explicitly LINKED to a member with a conflict or exception kind, in an open
// CONFLICTS_WITH with a member (found by the merge job), or a scoped exception (EXCEPTION_TO)
// to an insight that summarises a member. Shown to the synthesizer as separately labelled
// context; they never count as support (grounding refuses a claim citing them).
CALL () {
  MATCH (m:Memory)-[l:LINKED]-(c:Memory)
  WHERE m.id IN $ids AND NOT c.id IN $ids AND l.kind IN $kinds AND c.namespace = m.namespace
  RETURN c, l.kind + ' ' + m.id AS relation
  UNION
  MATCH (m:Memory)-[x:CONFLICTS_WITH]-(c:Memory)
  WHERE m.id IN $ids AND NOT c.id IN $ids AND x.status = 'open' AND c.namespace = m.namespace
  RETURN c, 'conflicts_with ' + m.id AS relation
  UNION
  MATCH (c:Memory)-[x:EXCEPTION_TO]->(i:Memory)-[:SUMMARIZES]->(m:Memory)
  WHERE m.id IN $ids AND NOT c.id IN $ids AND c.namespace = m.namespace
  RETURN c, 'exception_to ' + i.id + ' where ' + x.scope AS relation
}
WITH c, collect(DISTINCT relation) AS relations
ORDER BY c.id
LIMIT $limit
RETURN c.id AS id, c.title AS title, c.content AS content, c.kind AS kind, c.source AS source,
       c.sources AS sources, c.created_at AS created_at,
       CASE WHEN c.created_at <> c.admitted_at THEN c.created_at END AS dated_at, c.version AS version,
       reduce(s = '', r IN relations | s + CASE WHEN s = '' THEN '' ELSE ', ' END + r) AS relation
