UNWIND $ids AS id
MATCH (m:Memory {id: id})
RETURN collect(m.id) AS found
