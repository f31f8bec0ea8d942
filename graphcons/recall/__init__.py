"""Recall (issue 46): what an agent is shown for a query, on the floor of consolidation and
maintenance (it reads what they store: insights, communities, supersessions, epistemics).

- `query`: the one `RecallQuery` (text, k, scope, modes, `as_of`, `now`, the event-time window,
  recording), checked once (issue 60); the transports build it with a named recipe, the facade from
  a Python caller's keywords;
- `hits`: the typed `Hit` (a memory shown, its score, what brought it there, the members it
  carries, an insight's source episodes) and the modes as enums; also the HTTP API's schema of a hit;
- `lists`: the candidate lists: vector, keyword, and the graph step (spread / PPR);
- `rank`: fusion, the community prior, one memory standing for many, diversity;
- `route`: whether an insight carries its members' query-relevant content in fewer tokens, or routes
  to them (issue 61);
- `current`: what was current: updates after their successors, `as_of` (issues 51, 62);
- `eventwindow`: the event-time window: the question's own time phrases (issue 61) or `when` (issue 47);
- `retrieval`: `retrieve` and `search_text` (rank, group under insights, hydrate, record);
- `context`: the text block an agent pastes, within a budget in words or tokens, citing each memory
  by a short reference; its `ContextLine` is the one model of a line (HTTP's schema too).
"""
