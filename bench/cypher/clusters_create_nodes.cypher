// Synthetic memories for the clustering benchmark (no text, no embedding: not needed here;
// no title either, which keeps the full-text index out of the load time). `tie` as admission
// writes it (graphcons.store.tie.weight).
UNWIND $rows AS r
CREATE (:Memory {id: r.id, namespace: $namespace, subject: r.subject, scope: 'global', status: 'active',
                 kind: 'episode', source: 'bench', access_count: r.access,
                 version: 1, tie: r.tie})
