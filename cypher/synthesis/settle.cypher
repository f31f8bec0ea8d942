// A reserved synthesis reached an outcome (in the outcome's own transaction).
MATCH (r:BudgetReservation {id: $id})
SET r.settled = true, r.outcome = $outcome, r.settled_at = $now
RETURN r.id AS id
