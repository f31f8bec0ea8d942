// Migration (issue 60): each proposal's top-level payload fields folded into its `payload` (JSON
// written by graphcons.store.migrations), the top-level copies removed; a proposal that has a
// payload meanwhile is left as it is.
UNWIND $rows AS row
MATCH (p:Proposal {id: row.id})
WHERE p.payload IS NULL
SET p.payload = row.payload
REMOVE p.insight, p.themes, p.gate_figures, p.context_ids, p.confidence
RETURN count(p) AS moved
