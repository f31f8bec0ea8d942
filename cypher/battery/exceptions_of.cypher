// BATTERY ONLY (check "a self-derived exception is refused"): how many scoped exceptions an
// insight has; a refused exception must have added none.
MATCH (:Memory {id: $id})-[x:EXCEPTION_TO]->()
RETURN count(x) AS n
