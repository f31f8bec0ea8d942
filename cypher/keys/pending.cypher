// Memories the keys pass has not read in their current version (graphcons.store.keys): live, not
// derived (an insight or a profile statement is found as itself), in admission order so a pass
// stopped half-way resumes where it was. keys_version is the version last read (keys or none).
// $namespace (null = every one): a consolidation of one namespace keys only that namespace.
// Ids only, read once a pass: no index answers "not read in this version", so each read is a scan
// of the scope; the texts come batch by batch (keys/texts).
MATCH (m:Memory)
WHERE ($namespace IS NULL OR m.namespace = $namespace) AND m.status IN $live AND NOT coalesce(m.kind, '') IN $skip_kinds
  AND (m.keys_version IS NULL OR m.keys_version <> m.version)
RETURN m.id AS id
ORDER BY m.admitted_at, m.id
LIMIT $limit
