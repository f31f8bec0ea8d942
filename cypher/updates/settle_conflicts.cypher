// An applied update settles the open conflict between its two memories (issue 62): the merge pass kept
// them apart because they state different values; the update says which holds since when. The link is
// kept (nothing deleted), marked resolved as a person's resolution would be (`holds` the newer, `scope`
// since the update's `since`), with `settled_by: 'update'` and the proposal, so reverting the update
// reopens exactly this.
MATCH (:Memory {id: $newer})-[c:CONFLICTS_WITH]-(:Memory {id: $older})
WHERE c.status = 'open'
SET c.status = 'resolved', c.holds = $newer, c.scope = 'since ' + $since,
    c.note = 'settled by update ' + $proposal_id + ' (' + $attribute + ')', c.resolved_by = $by,
    c.resolved_at = $now, c.settled_by = 'update', c.update_proposal = $proposal_id
RETURN elementId(c) AS conflict
