// Known conflicts and exceptions of a cluster (seed 002): memories outside it, in the same
// namespace, explicitly LINKED to a member with a conflict or exception kind. Shown to the
// synthesizer as separately labelled context; they never count as support.
MATCH (m:Memory)-[l:LINKED]-(c:Memory)
WHERE m.id IN $ids AND NOT c.id IN $ids AND l.kind IN $kinds AND c.namespace = m.namespace
WITH c, collect(DISTINCT l.kind + ' ' + m.id) AS relations
ORDER BY c.id
LIMIT $limit
RETURN c.id AS id, c.title AS title, c.content AS content, c.kind AS kind, c.source AS source,
       c.sources AS sources, c.created_at AS created_at, c.version AS version,
       reduce(s = '', r IN relations | s + CASE WHEN s = '' THEN '' ELSE ', ' END + r) AS relation
