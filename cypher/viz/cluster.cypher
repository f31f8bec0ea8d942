// The members of a cluster by its key: from its synthesis task, else from a proposal made of it.
OPTIONAL MATCH (t:SynthesisTask {cluster_key: $key})
OPTIONAL MATCH (p:Proposal {cluster_key: $key})
WITH t, p ORDER BY p.created_at DESC LIMIT 1
RETURN coalesce(t.member_ids, p.member_ids) AS member_ids
