MATCH (p:Proposal {id: $id})
RETURN p {.*} AS proposal
