// Counts for `graphcons stats`.
CALL () { MATCH (m:Memory) RETURN count(m) AS memories }
CALL () { MATCH (m:Memory) WITH m.status AS status, count(*) AS n RETURN collect([status, n]) AS by_status }
CALL () { MATCH (m:Memory) WITH m.kind AS kind, count(*) AS n RETURN collect([kind, n]) AS by_kind }
CALL () { MATCH (m:Memory) WITH m.namespace AS ns, count(*) AS n RETURN collect([ns, n]) AS by_namespace }
CALL () { MATCH ()-[r:SIMILAR]->() RETURN count(r) AS similar_edges }
CALL () { MATCH ()-[r:LINKED]->() RETURN count(r) AS linked_edges }
CALL () { MATCH ()-[r:CO_ACCESSED]->() RETURN count(r) AS coaccess_edges, coalesce(sum(r.count), 0) AS coaccess_total }
CALL () { MATCH (v:MemoryVersion) RETURN count(v) AS versions }
CALL () { MATCH (s:Session) RETURN count(s) AS sessions }
RETURN memories, by_status, by_kind, by_namespace, similar_edges, linked_edges, coaccess_edges,
       coaccess_total, versions, sessions
