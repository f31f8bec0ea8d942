// Memories whose event times the current resolver has not read (admitted before issue 47, or by
// an older resolver), one page in id order after $after: the back-fill's work list.
MATCH (m:Memory)
WHERE (m.event_resolver IS NULL OR m.event_resolver < $version) AND m.id > $after
RETURN m.id AS id, m.content AS content, m.created_at AS created_at
ORDER BY m.id
LIMIT $page
