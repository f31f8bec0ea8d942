// The insights that summarise memory $id (one level up), newest first.
MATCH (i:Memory)-[r:SUMMARIZES]->(:Memory {id: $id})
RETURN i.id AS id, i.title AS title, i.status AS status, r.version AS version, r.reverted_at AS reverted_at
ORDER BY i.created_at DESC, i.id
