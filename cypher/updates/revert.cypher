// Revert one applied update (issue 51): the SUPERSEDES edge is kept, marked reverted (nothing deleted);
// neither memory's status changes (applying changed none).
MATCH (n:Memory)-[s:SUPERSEDES {proposal_id: $proposal_id}]->(o:Memory)
WHERE s.reason = 'update' AND NOT coalesce(s.reverted, false)
SET s.reverted = true, s.reverted_at = $at, s.reverted_run_id = $run_id, s.reverted_by = $by
RETURN n.id AS newer, o.id AS older
