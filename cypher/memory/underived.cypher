// The memories of some blocks (memory/blocks) the update and card passes read (issue 51): live, and none
// derived from others (an insight or a reflection's statement says what its premises say: their updates
// and their card items are the premises').
// Event time: `event_start` as admission stored it (core/eventtime), else `created_at` (ISO text).
UNWIND $scopes AS s
MATCH (m:Memory {namespace: s.namespace, subject: s.subject})
WHERE m.status IN $live
  AND NOT EXISTS { (m)-[d:DERIVED_FROM|SUMMARIZES]->(:Memory) WHERE d.reverted_at IS NULL }
RETURN m.id AS id, m.content AS content, m.namespace AS namespace, m.subject AS subject, m.version AS version,
       toString(m.created_at) AS created_at, m.event_start AS event_start
ORDER BY namespace, subject, id
