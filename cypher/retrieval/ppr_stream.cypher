// Personalised PageRank over retrieval/ppr_project's graph, teleporting to the query's seed hits
// ($seeds: [{id, weight}]) in proportion to their weight. GDS 2.13 takes no per-seed bias ("Failed
// to parse `sourceNodes` as a List of node IDs" for [node, bias] pairs), and PageRank is linear in
// its teleport vector, so the rank is the weighted sum of one run per seed (teleports to the seeds
// alike would rank every seed the same whatever its score). Walks follow the edge weights; one
// thread, so the same graph and seeds give the same ranks. A seed's rank leaves out what its own
// run gives it (at least 1 - damping of its teleports, which would only repeat its query score):
// a memory's rank is what walks from the other seeds bring it. The best $limit memories come back with
// their cosine to the query (null without an embedding).
UNWIND $seeds AS seed
MATCH (s:Memory {id: seed.id})
CALL gds.pageRank.stream($graph_name, {sourceNodes: [s], dampingFactor: $damping,
     relationshipWeightProperty: 'weight', maxIterations: 40, tolerance: 1e-7, concurrency: 1})
YIELD nodeId, score
WITH nodeId, seed, score WHERE nodeId <> id(s)
WITH nodeId, sum(seed.weight * score) AS rank
WHERE rank > 0
WITH gds.util.asNode(nodeId) AS m, rank
RETURN m {.id, .kind, .epistemic_status} AS memory, rank,
       CASE WHEN $embedding IS NULL OR m.embedding IS NULL THEN null
            ELSE vector.similarity.cosine($embedding, m.embedding) * 2 - 1 END AS cosine
ORDER BY rank DESC, m.id
LIMIT $limit
