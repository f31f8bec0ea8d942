// Pairs already handled (issue 51): an update proposal of any status (its id is a digest of the two
// memories, either way round, so a rejected pair is never proposed again), or a SUPERSEDES edge between
// the two either way (an update, a merge or a replacement already relates them).
UNWIND $pairs AS p
OPTIONAL MATCH (pr:Proposal {id: p.proposal_id})
OPTIONAL MATCH (:Memory {id: p.newer})-[s:SUPERSEDES]-(:Memory {id: p.older})
RETURN p.proposal_id AS proposal_id, pr.status AS proposal_status, count(s) > 0 AS superseded
