// Take the proposal's write lock for the rest of the transaction (set and removed in one
// statement: nothing changes) and read its committed state, so two approvals serialise.
MATCH (p:Proposal {id: $id})
SET p.locking = true
REMOVE p.locking
RETURN p {.*} AS proposal
