// Apply one update (issue 51): (newer)-[:SUPERSEDES {reason: 'update'}]->(older). Both memories keep their
// status: the older value is history, still answerable "as of" an earlier date, not a deprecation.
// `since`: when the newer value became current (the newer's event start, else its created_at), ISO text;
// `at`: when the update was applied, ISO text. One edge per proposal: applying twice adds nothing.
MATCH (n:Memory {id: $newer}), (o:Memory {id: $older})
WHERE n.status IN $live AND o.status IN $live AND n.namespace = o.namespace AND n.subject = o.subject
MERGE (n)-[s:SUPERSEDES {proposal_id: $proposal_id}]->(o)
SET s.reason = 'update', s.attribute = $attribute, s.since = $since, s.at = $at, s.by = $by,
    s.run_id = $run_id, s.reverted = false
RETURN n.id AS newer, o.id AS older, o.status AS older_status
