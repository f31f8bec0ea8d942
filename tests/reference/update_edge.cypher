// Test support (tests/test_current.py): an applied update as the update review writes it (issue 51),
// `(newer)-[:SUPERSEDES {reason: 'update', ...}]->(older)`, the older left active. Until the update
// detection lands this is how a test makes one; $reverted marks it reverted (it then counts for nothing).
MATCH (n:Memory {id: $newer}), (o:Memory {id: $older})
CREATE (n)-[s:SUPERSEDES {reason: 'update', attribute: $attribute, since: $since, at: datetime(), by: 'test',
                          run_id: 'test', proposal_id: 'test-' + $newer, reverted: $reverted}]->(o)
RETURN s.since AS since
