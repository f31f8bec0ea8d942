// Applied reflections of the same entity that wrote a later profile version than this one
// (they must be reverted first: a revert restores the profile as it was before this one).
MATCH (p:Proposal {kind: 'reflect', status: 'applied', namespace: $namespace, subject: $subject})
WHERE p.profile_version > $profile_version
RETURN p.id AS id ORDER BY p.profile_version
