// Pairs already handled: a merge proposal of any status (pending, applied, rejected,
// reverted), a CONFLICTS_WITH link or a merge's RELATED link either way. A known pair is
// never proposed again.
UNWIND $pairs AS p
OPTIONAL MATCH (pr:Proposal {id: p.proposal_id})
OPTIONAL MATCH (:Memory {id: p.a})-[c:CONFLICTS_WITH]-(:Memory {id: p.b})
OPTIONAL MATCH (:Memory {id: p.a})-[r:RELATED {source: 'merge'}]-(:Memory {id: p.b})
RETURN p.proposal_id AS proposal_id, pr.status AS proposal_status, count(c) > 0 AS conflict,
       count(r) > 0 AS related
