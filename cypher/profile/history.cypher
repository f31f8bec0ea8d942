// Every version of one entity's profile, oldest first (updates never overwrite history).
MATCH (v:ProfileVersion {key: $key})
RETURN v {.*} AS version
ORDER BY v.version
