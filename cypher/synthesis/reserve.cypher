// Reserve one synthesis of the day's [consolidation] daily_cap for one cluster membership,
// atomically across workers: the day's budget node is locked (set and removed) before it is
// read, so N workers together never reserve more than $cap. The day's counter starts from
// the syntheses already audited that day. An unsettled reservation for the same membership
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
WITH b
OPTIONAL MATCH (r:BudgetReservation {id: $id})
OPTIONAL MATCH (holder:JobRun {run_id: r.run_id})
WITH b, r.run_id AS held_by, coalesce(r IS NOT NULL AND NOT r.settled, false) AS open,
     coalesce(r.run_id = $run_id OR holder.status IN ['abandoned', 'interrupted', 'failed'], false) AS over
WITH b, held_by, open AND over AS resumed, open AND NOT over AS busy
WITH b, held_by, resumed, busy, resumed OR (NOT busy AND b.reserved < $cap) AS granted
CALL (b, resumed, granted) {
  WITH b, resumed WHERE granted
  SET b.reserved = b.reserved + CASE WHEN resumed THEN 0 ELSE 1 END
  MERGE (r:BudgetReservation {id: $id})
    ON CREATE SET r.day = $day, r.cluster_key = $key, r.membership_hash = $membership_hash, r.attempts = 0
  SET r.settled = false, r.attempts = r.attempts + CASE WHEN resumed THEN 0 ELSE 1 END, r.reserved_at = $now,
      r.run_id = $run_id
}
RETURN granted, resumed, busy, held_by, b.reserved AS reserved
