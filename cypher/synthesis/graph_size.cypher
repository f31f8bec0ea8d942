// Nodes and relationships outside the audit trail: what a failed apply must leave unchanged.
CALL () { MATCH (n) WHERE NOT n:Audit RETURN count(n) AS nodes }
CALL () { MATCH ()-[r]->() RETURN count(r) AS relationships }
RETURN nodes, relationships
