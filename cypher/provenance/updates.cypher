// The update chain around memory $id (issue 51): the memories whose newer value superseded it
// (`superseded_by`) and the ones it superseded (`supersedes`), with the attribute, since when, who
// applied it, and whether it was reverted (a reverted update counts for nothing, but stays on record).
//   :param id => 'mem-...'
MATCH (m:Memory {id: $id})
RETURN [(n:Memory)-[s:SUPERSEDES {reason: 'update'}]->(m) |
          {id: n.id, attribute: s.attribute, since: s.since, reverted: coalesce(s.reverted, false),
           proposal_id: s.proposal_id}] AS superseded_by,
       [(m)-[s:SUPERSEDES {reason: 'update'}]->(o:Memory) |
          {id: o.id, attribute: s.attribute, since: s.since, reverted: coalesce(s.reverted, false),
           proposal_id: s.proposal_id}] AS supersedes
