// Seed 003's health figures and the counts its quality metrics are made of.
CALL () { MATCH (m:Memory) RETURN count(m) AS total }
CALL () { MATCH (m:Memory {status: 'active'}) RETURN count(m) AS active, avg(m.effective_weight) AS avg_weight }
CALL () { MATCH (m:Memory {status: 'proposed'}) RETURN count(m) AS proposed }
CALL () { MATCH (m:Memory {status: 'consolidated'}) RETURN count(m) AS consolidated }
CALL () {
  MATCH (m:Memory {status: 'deprecated'})
  RETURN count(m) AS deprecated, count(CASE WHEN m.deprecated_reason = 'merged' THEN 1 END) AS deprecated_by_merge
}
CALL () { MATCH (m:Memory {status: 'archived'}) RETURN count(m) AS archived }
CALL () { MATCH (m:Memory) WHERE m.promoted_at IS NOT NULL RETURN count(m) AS promoted }
CALL () {
  MATCH (p:Proposal {kind: 'merge'})
  RETURN count(CASE WHEN p.status = 'pending' THEN 1 END) AS merge_pending,
         count(CASE WHEN p.status = 'applied' AND p.reviewed_by <> 'auto' THEN 1 END) AS merge_approved,
         count(CASE WHEN p.status = 'applied' AND p.reviewed_by = 'auto' THEN 1 END) AS merge_auto_applied,
         count(CASE WHEN p.status = 'rejected' THEN 1 END) AS merge_rejected,
         count(CASE WHEN p.status = 'reverted' THEN 1 END) AS merge_reverted
}
// The memories pending merge proposals would retire (each proposal's loser, memory_ids[1]), counted
// once however many proposals name them, and only while they are still live: the duplicates
// not merged yet, which the duplicate rate counts beside those already merged (issue 29).
CALL () {
  MATCH (p:Proposal {kind: 'merge', status: 'pending'})
  MATCH (m:Memory {id: p.memory_ids[1]})
  WHERE m.status IN $live
  RETURN count(DISTINCT m) AS pending_duplicates
}
CALL () { MATCH ()-[c:CONFLICTS_WITH]->() WHERE c.status = 'open' RETURN count(c) AS open_conflicts }
CALL () { MATCH (m:Memory) WHERE m.status IN $live RETURN count(m) AS live }
RETURN total, live, active, avg_weight, proposed, consolidated, deprecated, deprecated_by_merge, archived, promoted,
       merge_pending, merge_approved, merge_auto_applied, merge_rejected, merge_reverted, pending_duplicates,
       open_conflicts
