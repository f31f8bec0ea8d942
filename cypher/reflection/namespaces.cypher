// The namespaces in which a subject has memories (to resolve `reflect --subject S` with no namespace).
MATCH (m:Memory {subject: $subject})
RETURN DISTINCT m.namespace AS namespace
ORDER BY namespace
