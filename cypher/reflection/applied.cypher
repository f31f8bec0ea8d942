// What an applied reflection changed, kept on its proposal (revert restores profile_version_before).
MATCH (p:Proposal {id: $id})
SET p.profile_version = $profile_version, p.profile_version_before = $profile_version_before,
    p.created_ids = $created_ids, p.confirmed_ids = $confirmed_ids
RETURN p.id AS id
