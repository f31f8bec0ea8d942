// The fixed probe whose latency `graphcons health` reports: one nearest-neighbour query.
CALL db.index.vector.queryNodes($name, $k, $vector) YIELD node
RETURN count(node) AS found
