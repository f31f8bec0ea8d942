"""Layer 1: the store itself (schema, admission, import, history, scopes, co-access, activation, evidence, justification, the proposal record, leases and job runs, dirty marks, census)."""
