// Revert an applied consolidation (the proposal itself moves by proposals/transition):
// the insight is deprecated (a new version records it), every SUMMARIZES / DERIVED_FROM
// link stays and is marked reverted; nothing is removed.
MATCH (p:Proposal {id: $proposal_id})-[:CREATED]->(i:Memory)
SET i.status = 'deprecated', i.version = i.version + 1, i.updated_at = $now, i.deprecated_reason = $reason
CREATE (i)-[:VERSION]->(v:MemoryVersion)
SET v = i {.title, .content, .kind, .subject, .scope, .status, .content_hash, .source},
    v.memory_id = i.id, v.version = i.version, v.created_at = $now, v.edited_by = $by
WITH i
CALL (i) {
  OPTIONAL MATCH (i)-[r:SUMMARIZES|DERIVED_FROM]->(:Memory)
  SET r.reverted_at = $now
  RETURN count(r) AS links
}
RETURN i.id AS insight_id, links
