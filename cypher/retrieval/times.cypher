// When each memory in $ids was said and what it says happened (issue 47, 51): its `created_at` and
// its event interval (`event_start` / `event_end`, ISO dates, null when its text names no time); and
// when it left or came back to the live statuses (issue 62: `as_of` answers with what was visible then):
// its status, `deprecated_at` (a merge or the stale-memory job), `archived_at`, `retired_at`, `restored_at`
// (a restore or a reverted merge) and `updated_at` (an insight or statement retired by a revert says no
// other time). Read only for a call that asks `as_of` or `when` (graphcons.recall.current, .eventwindow).
UNWIND $ids AS id
MATCH (m:Memory {id: id})
RETURN collect({id: m.id, created_at: m.created_at, event_start: m.event_start, event_end: m.event_end,
                status: m.status, deprecated_at: m.deprecated_at, archived_at: m.archived_at,
                retired_at: m.retired_at, restored_at: m.restored_at, updated_at: m.updated_at}) AS times
