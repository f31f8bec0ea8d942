// The effective weight of one memory after one of its components changed (e.g. feedback).
MATCH (m:Memory {id: $id})
SET m.effective_weight = $effective_weight
RETURN m.effective_weight AS effective_weight
