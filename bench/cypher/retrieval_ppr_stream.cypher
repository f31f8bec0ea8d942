// bench/retrieval/latency.py --ppr: personalised PageRank from the query's seed hits ($seeds: ids).
MATCH (s:Memory) WHERE s.id IN $seeds
WITH collect(s) AS seeds
CALL gds.pageRank.stream($name, {sourceNodes: seeds, dampingFactor: 0.85, maxIterations: 20, concurrency: 1})
YIELD nodeId, score
RETURN gds.util.asNode(nodeId).id AS id, score ORDER BY score DESC, id LIMIT 20
