// Before a keyword search: wait until the eventually consistent memory_text index has taken
// every committed update (cypher/schema/02_indexes), so a search sees what was just admitted.
CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()
