// BATTERY ONLY: what synthesis stored for one cluster key: its proposals and its insights
// (check "a synthesis citing no member is rejected": a rejected synthesis stores neither).
CALL () { MATCH (p:Proposal {cluster_key: $key}) RETURN count(p) AS proposals }
CALL () { MATCH (i:Memory {kind: 'insight', cluster_key: $key}) RETURN count(i) AS insights }
RETURN proposals, insights
