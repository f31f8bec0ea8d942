// One entity's profile (current version), by key = namespace + '/' + subject.
MATCH (p:Profile {key: $key})
RETURN p {.*} AS profile
