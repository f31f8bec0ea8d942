// When each memory in $ids was said and what it says happened (issue 47, 51): its `created_at` and
// its event interval (`event_start` / `event_end`, ISO dates, null when its text names no time).
// Read only for a call that asks `as_of` or `when` (graphcons.recall.current, .eventwindow).
UNWIND $ids AS id
MATCH (m:Memory {id: id})
RETURN collect({id: m.id, created_at: m.created_at, event_start: m.event_start, event_end: m.event_end}) AS times
