// Wait until every index is ONLINE (after a rebuild), at most $seconds.
CALL db.awaitIndexes($seconds)
