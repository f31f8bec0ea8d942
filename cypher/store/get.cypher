// The store's identity: which embedder built it (a different one is refused).
MATCH (s:GraphconsStore {key: 'store'})
RETURN s {.*} AS store
