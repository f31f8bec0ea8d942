// Premise invalidation: every holding premise on these memories that no longer holds (the
// memory has a new version, is no longer live, or is in an open, contesting CONFLICTS_WITH with a memory
// that is not itself a premise of the same justification: premises that differ among
// themselves, e.g. two incidents with different version numbers, were shown to synthesis
// together and are its tensions, not a reason to withdraw it) is marked lost with its cause; a justification that loses a REQUIRED premise is withdrawn. Other
// justifications of the same insight are untouched. Returns what changed.
UNWIND $ids AS mid
MATCH (j:Justification)-[p:PREMISE {status: 'holding'}]->(m:Memory {id: mid})
WHERE m.version <> p.version OR NOT m.status IN $live
   OR EXISTS { (m)-[c:CONFLICTS_WITH]-(o:Memory)
              WHERE c.status = 'open' AND coalesce(c.contests, true) AND NOT (j)-[:PREMISE]->(o) }
SET p.status = 'lost', p.lost_at = $now, p.lost_op = $op, p.lost_cause = $cause
WITH j, collect({id: m.id, version: p.version, required: p.required}) AS lost
WITH j, lost, j.status AS before
SET j.status = CASE WHEN any(x IN lost WHERE x.required) THEN 'withdrawn' ELSE j.status END
SET j.withdrawn_at = CASE WHEN before = 'standing' AND j.status = 'withdrawn' THEN $now ELSE j.withdrawn_at END,
    j.withdrawn_cause = CASE WHEN before = 'standing' AND j.status = 'withdrawn' THEN $cause ELSE j.withdrawn_cause END
RETURN j.insight_id AS insight_id, j.id AS justification, j.kind AS kind, before, j.status AS after, lost
ORDER BY insight_id, justification
