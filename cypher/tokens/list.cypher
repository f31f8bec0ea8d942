// Every token, revoked ones included (kept: nothing is deleted), without hashes.
MATCH (t:ApiToken)
RETURN t {.id, .name, .role, .namespaces, .status, .created_at, .created_by, .revoked_at, .revoked_by,
          .revoke_reason} AS token
ORDER BY t.created_at, t.id
