// The memories of a provenance walk, with what a reader checks: kind, sources, dates,
// status, and (for insights) the provenance they record for themselves.
UNWIND $ids AS id
OPTIONAL MATCH (m:Memory {id: id})
RETURN id, m IS NOT NULL AS found, m.kind AS kind, m.title AS title, m.status AS status,
       m.epistemic_status AS epistemic_status, m.source AS source, m.sources AS sources,
       m.created_at AS created_at, m.version AS version, m.summarizes AS summarizes,
       m.derived_from AS derived_from, m.proposal_id AS proposal_id, m.subject AS subject
ORDER BY id
