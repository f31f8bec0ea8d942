// A repeated claim: a new source adds evidence, the same source repeating it does not.
MATCH (m:Memory {id: $id})
WITH m, NOT $source IN m.sources AS is_new
SET m.sources = CASE WHEN is_new THEN m.sources + $source ELSE m.sources END,
    m.repetitions = coalesce(m.repetitions, 0) + 1
SET m.evidence_count = size(m.sources)
RETURN m.evidence_count AS evidence_count, is_new
