// Revoke a token: it stays, marked revoked, and no longer authenticates.
MATCH (t:ApiToken {id: $id})
WITH t, t.status AS before
SET t.status = 'revoked',
    t.revoked_at = CASE WHEN before = 'revoked' THEN t.revoked_at ELSE $now END,
    t.revoked_by = CASE WHEN before = 'revoked' THEN t.revoked_by ELSE $by END,
    t.revoke_reason = CASE WHEN before = 'revoked' THEN t.revoke_reason ELSE $reason END
RETURN t {.id, .name, .role, .namespaces, .status, .revoked_at, .revoked_by} AS token, before
