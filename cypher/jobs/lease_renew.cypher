// Extend a lease this worker still holds (same token); no row: it was lost (expired and taken).
MATCH (l:Lease {job: $job, token: $token})
SET l.renewed_at = datetime.statement(), l.expires_at = datetime.statement() + duration({milliseconds: $ttl_ms})
RETURN l.expires_at AS expires_at
