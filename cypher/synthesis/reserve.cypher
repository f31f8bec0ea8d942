// Reserve one synthesis of the day's [consolidation] daily_cap for one cluster membership,
// atomically across workers: the day's budget node is locked (set and removed) before it is
// read, so N workers together never reserve more than $cap. The day's counter starts from
// the syntheses already audited that day. An unsettled reservation for the same membership
// (a run killed mid-synthesis) is resumed, not counted twice; a settled one (a failed
// attempt) is counted again for a new attempt.
MERGE (b:SynthesisBudget {day: $day})
  ON CREATE SET b.created_at = $now,
    b.reserved = COUNT { MATCH (a:Audit {op: 'synthesize'}) WHERE a.at >= $start AND a.at < $end }
SET b.locking = true
REMOVE b.locking
WITH b
OPTIONAL MATCH (r:BudgetReservation {id: $id})
WITH b, r IS NOT NULL AND NOT r.settled AS resumed
WITH b, resumed, resumed OR b.reserved < $cap AS granted
CALL (b, resumed, granted) {
  WITH b WHERE granted AND NOT resumed
  SET b.reserved = b.reserved + 1
  MERGE (r:BudgetReservation {id: $id})
    ON CREATE SET r.day = $day, r.cluster_key = $key, r.membership_hash = $membership_hash, r.attempts = 0
  SET r.settled = false, r.attempts = r.attempts + 1, r.reserved_at = $now, r.run_id = $run_id
}
RETURN granted, resumed, b.reserved AS reserved
