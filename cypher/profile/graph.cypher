// Browser: an entity's profile, the semantic memories it holds, and the memories each rests on.
// :param namespace => 'default'; :param subject => 'user-ana';
MATCH path = (p:Profile {namespace: $namespace, subject: $subject})-[h:HOLDS {current: true}]->(s:Memory)
             -[d:DERIVED_FROM]->(src:Memory)
WHERE d.reverted_at IS NULL
RETURN path
