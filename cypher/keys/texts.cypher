// One batch of the keys pass: the texts of $ids (keys/pending's order kept) still pending in their
// current version (one edited, retired or read by another pass since the ids were read is left out).
UNWIND range(0, size($ids) - 1) AS place
MATCH (m:Memory {id: $ids[place]})
WHERE m.status IN $live AND (m.keys_version IS NULL OR m.keys_version <> m.version)
RETURN m.id AS id, m.version AS version, m.content AS content
ORDER BY place
