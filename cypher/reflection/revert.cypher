// Revert an applied reflection (the proposal moves by proposals/transition; the profile is
// restored by profile/save): the semantic memories it created are deprecated (a new version
// records it; `retired` lists them for premise invalidation, issue 50); its DERIVED_FROM edges
// stay, marked reverted, and the derived_from lists of the memories it confirmed are recomputed;
// its conflicts are closed as reverted (`contested`: the earlier statements they flagged, whose
// lost premises may hold again).
MATCH (p:Proposal {id: $proposal_id})
CALL (p) {
  OPTIONAL MATCH (p)-[:CREATED]->(s:Memory)
  WHERE s.status <> 'deprecated'
  SET s.status = 'deprecated', s.version = s.version + 1, s.updated_at = $now, s.deprecated_reason = $reason
  WITH s WHERE s IS NOT NULL
  CREATE (s)-[:VERSION]->(v:MemoryVersion)
  SET v = s {.title, .content, .kind, .subject, .scope, .status, .content_hash, .source},
      v.memory_id = s.id, v.version = s.version, v.created_at = $now, v.edited_by = $by
  RETURN count(s) AS deprecated, collect(s.id) AS retired
}
CALL (p) {
  OPTIONAL MATCH (s:Memory)-[d:DERIVED_FROM {proposal_id: $proposal_id}]->(:Memory)
  SET d.reverted_at = $now
  RETURN count(d) AS links, collect(DISTINCT s) AS touched
}
CALL (touched) {
  UNWIND touched AS s
  CALL (s) {
    OPTIONAL MATCH (s)-[d:DERIVED_FROM]->(m:Memory)
    WHERE d.reverted_at IS NULL
    WITH DISTINCT m.id AS id ORDER BY id
    RETURN [x IN collect(id) WHERE x IS NOT NULL] AS ids
  }
  SET s.derived_from = ids, s.source_count = size(ids)
  RETURN count(s) AS recomputed
}
CALL (p) {
  OPTIONAL MATCH (:Memory)-[c:CONFLICTS_WITH {proposal_id: $proposal_id}]->(o:Memory)
  SET c.status = 'reverted', c.reverted_at = $now
  RETURN count(c) AS conflicts, collect(o.id) AS contested
}
RETURN deprecated, retired, links, conflicts, contested
