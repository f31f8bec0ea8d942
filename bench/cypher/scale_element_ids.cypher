// Benchmark only (bench/store/scale.py): memory id -> element id, so edges are created by direct node lookup.
MATCH (m:Memory)
RETURN m.id AS id, elementId(m) AS eid
