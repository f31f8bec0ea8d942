// Admission's hot path in one statement (issue 15: one round trip instead of five). First what
// the input must be checked against, in the same transaction: the exact duplicate ($props'
// namespace, subject and content_hash; the oldest, as memory/find_duplicate), which link
// targets ($link_targets, sorted) do not exist, and whether the id ($props.id: explicit, or
// generated from the input, graphcons.core.memory.new_memory_id) is taken (the caller then
// refuses an explicit id, or retries a generated one as a true repeat). Only when none of them stops it (the caller adds evidence to the
// duplicate or reports the error; either way this statement wrote nothing), the memory and
// its first version; the size of its scope (same namespace and subject) and, when the scope
// has at most $exact_max memories, its exact top $k SIMILAR neighbours
// (cypher/similar/exact.cypher's rule: live, cosine >= $floor, ties by id), written as
// edges; its explicit links ($links); one more admission on its subject's dirty mark
// (cypher/jobs/mark_dirty.cypher); and its audit record ($audit: graphcons.core.audit.with_count,
// the details joined around the SIMILAR count). A larger scope returns no neighbours and writes
// no audit record: graphcons.store.neighbours then reads the vector index in the same
// transaction, and the caller records the memory with what it found.
WITH COLLECT {
       MATCH (d:Memory {namespace: $props.namespace, subject: $props.subject, content_hash: $props.content_hash})
       USING INDEX d:Memory(namespace, subject, content_hash)
       WHERE $dedupe  // false for a put: it stores under its own key whatever else holds the same text
       RETURN d.id ORDER BY d.created_at, d.id LIMIT 1
     }[0] AS duplicate,
     [t IN $link_targets WHERE NOT EXISTS { MATCH (:Memory {id: t}) }] AS missing,
     EXISTS { MATCH (:Memory {id: $props.id}) } AS taken
OPTIONAL CALL (duplicate, missing, taken) {
  WITH * WHERE duplicate IS NULL AND missing = [] AND NOT taken
  CREATE (m:Memory)
  SET m = $props
  WITH m
  CALL db.create.setNodeVectorProperty(m, 'embedding', $embedding)  // 32-bit floats: see core.memory.without_embedding
  CREATE (m)-[:VERSION]->(v:MemoryVersion)
  SET v = $version_props
  WITH m
  CALL (m) {  // $k = 0 (a put, whose neighbours come later: store/linker.py) counts nothing: 0
    WITH m WHERE $k > 0
    MATCH (n:Memory {namespace: m.namespace, subject: m.subject})
    RETURN count(n) AS size
    UNION
    WITH m WHERE $k = 0
    RETURN 0 AS size
  }
  CALL (m, size) {
    WITH m, m.embedding AS e  // read once, not once per candidate
    MATCH (n:Memory {namespace: m.namespace, subject: m.subject})
    USING INDEX n:Memory(namespace, subject)
    WHERE $k > 0 AND size <= $exact_max
    WITH n, vector.similarity.cosine(e, n.embedding) * 2 - 1 AS cosine
    WHERE cosine >= $floor
    WITH n, cosine
    WHERE n.id <> m.id AND n.status IN $live  // after the floor: few candidates are left to read
    WITH n, cosine
    ORDER BY cosine DESC, n.id
    LIMIT $k
    CREATE (m)-[:SIMILAR {score: cosine}]->(n)
    RETURN collect({id: n.id, score: cosine}) AS neighbours
  }
  CALL (m) {
    UNWIND $links AS l
    MATCH (b:Memory {id: l.target})
    MERGE (m)-[r:LINKED {kind: l.kind}]->(b)
      ON CREATE SET r.created_at = m.admitted_at, r.source = m.source
    RETURN count(r) AS linked
  }
  MERGE (d:DirtyMark {key: m.namespace + '|' + m.subject})
    ON CREATE SET d.namespace = m.namespace, d.subject = m.subject, d.count = 0, d.first_at = m.admitted_at
  SET d.count = d.count + 1, d.last_at = m.admitted_at
  WITH m, size, neighbours, linked
  CALL (size, neighbours) {
    WITH size, neighbours WHERE $k = 0 OR size <= $exact_max
    CREATE (:Audit {id: $audit.id, op: $audit.op, at: $audit.at, targets: $audit.targets,
                    details: $audit.head + toString(size(neighbours)) + $audit.tail})
  }
  RETURN size, neighbours, linked
}
RETURN duplicate, missing, taken, size, neighbours, linked
