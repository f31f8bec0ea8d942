"""Layer 1: the store itself (schema, admission, import, history, co-access, retrieval, activation, the proposal record)."""
