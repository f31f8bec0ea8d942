// One version of one entity's profile (what a revert restores).
MATCH (v:ProfileVersion {key: $key, version: $version})
RETURN v {.*} AS version
