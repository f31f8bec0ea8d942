// The active token with this hash (the bearer token of a request, hashed).
MATCH (t:ApiToken {hash: $hash})
WHERE t.status = 'active'
RETURN t {.id, .name, .role, .namespaces} AS token
