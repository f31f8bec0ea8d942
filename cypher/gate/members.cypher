// What the gate needs to know about each member of the candidate clusters.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
RETURN m.id AS id, m.namespace AS namespace, m.subject AS subject, m.scope AS scope,
       m.title AS title, coalesce(m.access_count, 0) AS access_count,
       toFloat(coalesce(m.activation, 0.0)) AS activation, coalesce(m.version, 1) AS version
