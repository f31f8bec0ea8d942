// The approved cards context() may show (issue 47): the caller's $subject's, else those of the
// subjects the query names ($words: the query's words, casefolded), within $namespace (null: any).
MATCH (p:Profile)
WHERE ($namespace IS NULL OR p.namespace = $namespace)
  AND ($subject IS NULL OR p.subject = $subject)
  AND ($subject IS NOT NULL OR toLower(p.subject) IN $words)
  AND p.card IS NOT NULL AND p.card <> '{}'
RETURN p.namespace AS namespace, p.subject AS subject, p.card AS card
ORDER BY namespace, subject
