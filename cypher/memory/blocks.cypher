// The blocks of a store (issue 51): (namespace, subject) scopes with two live memories or more. The
// update pass compares within one (an update never crosses a namespace or a subject); the card pass
// cards one. `$namespace` / `$subject` (null = all) limit the pass.
MATCH (m:Memory)
WHERE m.status IN $live
  AND ($namespace IS NULL OR m.namespace = $namespace) AND ($subject IS NULL OR m.subject = $subject)
WITH m.namespace AS namespace, m.subject AS subject, count(m) AS size
WHERE size >= 2
RETURN namespace, subject, size
ORDER BY namespace, subject
