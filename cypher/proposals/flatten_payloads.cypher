// Migration (issue 60), reversed: the payload's fields back at the proposal's top level, as
// graphcons stored consolidate proposals before (JSON text for insight, themes and gate figures,
// written by graphcons.store.migrations), and `payload` removed.
UNWIND $rows AS row
MATCH (p:Proposal {id: row.id})
WHERE p.payload IS NOT NULL
SET p += row.flat
REMOVE p.payload
RETURN count(p) AS moved
