// Pending proposals per kind, for the graphcons_proposals_pending gauge (issue 42).
MATCH (p:Proposal {status: 'pending'})
RETURN p.kind AS kind, count(*) AS n
ORDER BY kind
