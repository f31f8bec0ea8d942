// The event times of one page of memories ($rows: {id, props}), only where the resolver has not
// read them since (a concurrent admission or edit already wrote the current version's).
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
WHERE m.event_resolver IS NULL OR m.event_resolver < $version
SET m += row.props
RETURN count(m) AS written, sum(CASE WHEN row.props.event_times IS NULL THEN 0 ELSE 1 END) AS with_times
