// What applying a card proposal did (profiles/card_kind): the profile versions before and
// after, and the items kept (a member changed or retired since the proposal was made drops its item).
MATCH (p:Proposal {id: $id})
SET p.profile_version = $profile_version, p.profile_version_before = $profile_version_before,
    p.kept_items = $kept, p.dropped_items = $dropped
RETURN p.id AS id
