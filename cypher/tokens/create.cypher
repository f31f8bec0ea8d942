// A new API token: only the SHA-256 of the token is stored.
CREATE (t:ApiToken {id: $id, name: $name, role: $role, namespaces: $namespaces, hash: $hash,
                    status: 'active', created_at: $now, created_by: $by})
RETURN t {.*, hash: null} AS token
