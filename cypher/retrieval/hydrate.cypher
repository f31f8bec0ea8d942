// The memories a ranking finally shows, read once: the ranking itself moves only each hit's
// head (id, kind, epistemic status), since reading every candidate's properties cost more than
// the index lookups at 100k memories (issue 28). Embeddings never leave the database.
// With $summarised (a grouped ranking), also the live insights that summarise each memory
// (insight-aware results; SUMMARIZES not reverted), by id, in this same round trip.
// `newer`: the live memories that state a newer value of what it says (issue 51: an applied update,
// SUPERSEDES {reason: 'update'} not reverted; the older stays live), for graphcons.recall.current to
// show them first. A degree check per hit when there are none.
// `relevance`: for the ids in $scored (the members a digest shows: retrieval/spread sends their ids
// only), their cosine to the query as cypher/retrieval/insight_cited scores it (null elsewhere):
// scored here for the ten or so carriers shown, not for every candidate carrier (issue 52).
// `fields` and `instants`: the memory's properties but its embedding, as [key, value] pairs; its
// zoned date-times as text ([key, ISO-8601]), which graphcons.core.time.memory_fields reads back into
// the datetimes the driver would give: the driver's own decoding of ~40 of them cost ~3 ms a call
// (issue 52). A date-time in a named zone ("...[Europe/Paris]") travels as itself.
MATCH (m:Memory) WHERE m.id IN $ids
WITH m, [k IN keys(m) WHERE m[k] IS :: ZONED DATETIME AND NOT toString(m[k]) CONTAINS '['] AS instants
RETURN [k IN keys(m) WHERE k <> 'embedding' AND NOT k IN instants | [k, m[k]]] AS fields,
       [k IN instants | [k, toString(m[k])]] AS instants,
       CASE WHEN NOT m.id IN $scored THEN null WHEN $embedding IS NULL THEN 0.0
            ELSE vector.similarity.cosine($embedding, m.embedding) * 2 - 1 END AS relevance,
       CASE WHEN $summarised THEN
         COLLECT { MATCH (i:Memory)-[r:SUMMARIZES]->(m)
                   WHERE NOT coalesce(r.reverted, false) AND i.status IN $live
                   WITH DISTINCT i ORDER BY i.id
                   RETURN {id: i.id, title: i.title, epistemic_status: i.epistemic_status} }
       ELSE [] END AS insights,
       COLLECT { MATCH (n:Memory)-[s:SUPERSEDES {reason: 'update'}]->(m)
                 WHERE NOT coalesce(s.reverted, false) AND n.status IN $live
                 RETURN {id: n.id, since: s.since, created_at: n.created_at, namespace: n.namespace,
                         subject: n.subject} } AS newer
