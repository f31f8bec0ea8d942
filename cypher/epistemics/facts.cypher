// What confirming or excepting an insight needs to know: the insight, the other memory
// (does its provenance reach the insight? is it a premise?) and the ids of every premise (their
// evidence sources are read by graphcons.store.evidence: a derived memory brings its premises').
OPTIONAL MATCH (i:Memory {id: $insight_id})
OPTIONAL MATCH (m:Memory {id: $memory_id})
RETURN i IS NOT NULL AS insight_found, i.kind AS insight_kind, i.subject AS insight_subject,
       i.namespace AS insight_namespace, i.status AS insight_status,
       m IS NOT NULL AS memory_found, m.kind AS kind, m.subject AS subject, m.namespace AS namespace,
       m.status AS status, m.version AS version,
       CASE WHEN i IS NULL OR m IS NULL THEN false
            ELSE m.id = i.id OR EXISTS { (m)-[:SUMMARIZES|DERIVED_FROM*1..8]->(i) } END AS derived_from_insight,
       CASE WHEN i IS NULL OR m IS NULL THEN false
            ELSE EXISTS { MATCH (j:Justification)-[:JUSTIFIES]->(i), (j)-[:PREMISE {required: true}]->(m) } END AS is_premise,
       CASE WHEN i IS NULL THEN [] ELSE COLLECT {
         MATCH (j2:Justification)-[:JUSTIFIES]->(i), (j2)-[:PREMISE]->(p:Memory) RETURN DISTINCT p.id ORDER BY p.id
       } END AS premise_ids
