// A merge proposal in the shared queue: (:Proposal {kind: 'merge'}). The id is derived
// from the pair, so proposing the same pair again finds the existing proposal.
MERGE (p:Proposal {id: $id})
  ON CREATE SET p.kind = 'merge', p.status = 'pending', p.created_at = $now, p.payload = $payload,
                p.run_id = $run_id, p.memory_ids = $memory_ids
RETURN p {.*} AS proposal
