// Reserve one synthesis of the day for one cluster membership, atomically across workers,
// within two caps: the day's ceiling over every namespace ([consolidation] daily_cap, on
// (:SynthesisBudget {day})) and the namespace's own share ($ns_cap, [consolidation]
// namespace_daily_cap, on (:NamespaceBudget {key: day|namespace}); 0 = no share, only the ceiling).
// Both budget nodes are locked (set and removed) before they are read, always in this order,
// so N workers together never reserve past either cap. The day's counter starts from the
// syntheses already audited that day. An unsettled reservation for the same membership
// is resumed without counting it again when it is this run's own or its run is over
// (abandoned after kill -9 and takeover, interrupted, failed); while another run still
// holds it the cluster is busy (no second LLM call for it). A settled reservation (a failed
// attempt) is counted again for a new attempt.
CALL () {
  MATCH (a:Audit {op: 'synthesize'}) WHERE a.at >= $start AND a.at < $end
  RETURN count(a) AS audited
}
MERGE (b:SynthesisBudget {day: $day})
  ON CREATE SET b.created_at = $now, b.reserved = audited
SET b.locking = true
REMOVE b.locking
MERGE (nb:NamespaceBudget {key: $day + '|' + $namespace})
  ON CREATE SET nb.day = $day, nb.namespace = $namespace, nb.created_at = $now, nb.reserved = 0
SET nb.locking = true
REMOVE nb.locking
WITH b, nb
OPTIONAL MATCH (r:BudgetReservation {id: $id})
OPTIONAL MATCH (holder:JobRun {run_id: r.run_id})
WITH b, nb, r.run_id AS held_by, coalesce(r IS NOT NULL AND NOT r.settled, false) AS open,
     coalesce(r.run_id = $run_id OR holder.status IN ['abandoned', 'interrupted', 'failed'], false) AS over
WITH b, nb, held_by, open AND over AS resumed, open AND NOT over AS busy
WITH b, nb, held_by, resumed, busy, b.reserved >= $cap AS ceiling_full,
     $ns_cap > 0 AND nb.reserved >= $ns_cap AS share_full
WITH b, nb, held_by, resumed, busy, ceiling_full, share_full,
     resumed OR (NOT busy AND NOT ceiling_full AND NOT share_full) AS granted
CALL (b, nb, resumed, granted) {
  WITH b, nb, resumed WHERE granted
  SET b.reserved = b.reserved + CASE WHEN resumed THEN 0 ELSE 1 END,
      nb.reserved = nb.reserved + CASE WHEN resumed THEN 0 ELSE 1 END
  MERGE (r:BudgetReservation {id: $id})
    ON CREATE SET r.day = $day, r.cluster_key = $key, r.membership_hash = $membership_hash, r.attempts = 0,
                  r.namespace = $namespace
  SET r.settled = false, r.attempts = r.attempts + CASE WHEN resumed THEN 0 ELSE 1 END, r.reserved_at = $now,
      r.run_id = $run_id
}
RETURN granted, resumed, busy, held_by, ceiling_full, share_full, b.reserved AS reserved,
       nb.reserved AS namespace_reserved
