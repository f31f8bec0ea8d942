// The update chain around memory $id (issue 51): the memories whose newer value superseded it
// (`superseded_by`) and the ones it superseded (`supersedes`), with the attribute, since when, who
// applied it, and its `status`: 'applied', 'reverted' (a reverted update counts for nothing, but stays
// on record) or 'pending' (issue 62: a proposal nobody reviewed yet already puts the newer value first;
// a rejected one is not listed).
//   :param id => 'mem-...'
MATCH (m:Memory {id: $id})
RETURN [(n:Memory)-[s:SUPERSEDES {reason: 'update'}]->(m) |
          {id: n.id, attribute: s.attribute, since: s.since, reverted: coalesce(s.reverted, false),
           proposal_id: s.proposal_id, status: CASE WHEN coalesce(s.reverted, false) THEN 'reverted' ELSE 'applied' END}]
     + [(p:Proposal {kind: 'update', status: 'pending'})-[:ABOUT]->(m) WHERE p.memory_ids[1] = m.id |
          {id: p.memory_ids[0], attribute: p.attribute, since: p.since, reverted: false, proposal_id: p.id,
           status: 'pending'}] AS superseded_by,
       [(m)-[s:SUPERSEDES {reason: 'update'}]->(o:Memory) |
          {id: o.id, attribute: s.attribute, since: s.since, reverted: coalesce(s.reverted, false),
           proposal_id: s.proposal_id, status: CASE WHEN coalesce(s.reverted, false) THEN 'reverted' ELSE 'applied' END}]
     + [(p:Proposal {kind: 'update', status: 'pending'})-[:ABOUT]->(m) WHERE p.memory_ids[0] = m.id |
          {id: p.memory_ids[1], attribute: p.attribute, since: p.since, reverted: false, proposal_id: p.id,
           status: 'pending'}] AS supersedes
