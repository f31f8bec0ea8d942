// Pairs already handled: a merge proposal of any status (pending, applied, rejected,
// reverted), a CONFLICTS_WITH link or a merge's RELATED link either way. A known pair is
// never proposed again. `lineage`: one of the two is derived from the other (an insight that
// summarises or cites it, a reflection's statement derived from it, a justification resting on
// it as a premise): never a merge candidate (issue 41, seed 002). `conclusion`: either is derived
// from other memories (an insight, a reflection's statement): its evidence is its premises', so
// merging it into a sibling (or a sibling into it) would count one piece of evidence twice (issue 50).
UNWIND $pairs AS p
OPTIONAL MATCH (pr:Proposal {id: p.proposal_id})
OPTIONAL MATCH (:Memory {id: p.a})-[c:CONFLICTS_WITH]-(:Memory {id: p.b})
OPTIONAL MATCH (:Memory {id: p.a})-[r:RELATED {source: 'merge'}]-(:Memory {id: p.b})
WITH p, pr, count(c) > 0 AS conflict, count(r) > 0 AS related
MATCH (a:Memory {id: p.a}), (b:Memory {id: p.b})
RETURN p.proposal_id AS proposal_id, pr.status AS proposal_status, conflict, related,
       EXISTS { (a)-[d:DERIVED_FROM|SUMMARIZES]-(b) WHERE d.reverted_at IS NULL }
       OR EXISTS { (a)<-[:JUSTIFIES]-(:Justification)-[:PREMISE]->(b) }
       OR EXISTS { (b)<-[:JUSTIFIES]-(:Justification)-[:PREMISE]->(a) } AS lineage,
       EXISTS { (a)-[d:DERIVED_FROM|SUMMARIZES]->(:Memory) WHERE d.reverted_at IS NULL }
       OR EXISTS { (b)-[d:DERIVED_FROM|SUMMARIZES]->(:Memory) WHERE d.reverted_at IS NULL } AS conclusion
