// Write a new version of an entity's profile: the node holds the current version, a
// (:ProfileVersion) snapshot keeps it for good, HOLDS points at the semantic memories of the
// current entries (edges of earlier entries stay, marked current = false). Nothing happens
// unless the profile is still at $expected_version (0: not created yet).
MERGE (p:Profile {key: $key})
  ON CREATE SET p.subject = $subject, p.namespace = $namespace, p.version = 0, p.created_at = $now
WITH p
WHERE p.version = $expected_version
SET p.version = p.version + 1, p.updated_at = $now, p.summary = $fields.summary,
    p.preferences = $fields.preferences, p.behaviors = $fields.behaviors, p.facts = $fields.facts, p.card = $fields.card,
    p.memory_ids = $memory_ids, p.source_ids = $source_ids, p.proposal_id = $proposal_id, p.change = $change
CREATE (p)-[:VERSION]->(v:ProfileVersion)
SET v = $fields, v.key = p.key, v.subject = p.subject, v.namespace = p.namespace, v.version = p.version,
    v.created_at = $now, v.proposal_id = $proposal_id, v.change = $change, v.by = $by,
    v.memory_ids = $memory_ids, v.source_ids = $source_ids
WITH p
CALL (p) {
  OPTIONAL MATCH (p)-[h:HOLDS]->(old:Memory)
  WHERE h.current AND NOT old.id IN $memory_ids
  SET h.current = false, h.until_version = p.version
  RETURN count(h) AS released
}
CALL (p) {
  UNWIND $memory_ids AS mid
  MATCH (s:Memory {id: mid})
  MERGE (p)-[h:HOLDS]->(s)
  ON CREATE SET h.since_version = p.version
  SET h.current = true
  RETURN count(h) AS held
}
RETURN p.version AS version, held, released
