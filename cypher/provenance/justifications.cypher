// Why graphcons believes insight $id (seed 002): its epistemic status and each justification
// with its exact premises (memory, version rested on, required?, holding or lost and why).
//   :param id => 'ins-...'
MATCH (i:Memory {id: $id})
OPTIONAL MATCH (j:Justification)-[:JUSTIFIES]->(i)
OPTIONAL MATCH (j)-[p:PREMISE]->(m:Memory)
RETURN i.id AS insight, i.epistemic_status AS epistemic_status, j.id AS justification, j.kind AS kind,
       j.status AS status, coalesce(j.rule + '@' + toString(j.rule_version), j.evidence_id, j.proposal_id) AS basis,
       j.withdrawn_cause AS withdrawn_cause, m.id AS premise, p.version AS rests_on_version,
       m.version AS current_version, p.required AS required, p.status AS premise_status, p.lost_cause AS lost_cause
ORDER BY j.created_at, justification, premise
