// The end of the fused projection when the graph goes to an Aura Graph Analytics session
// (graphcons.consolidation.placement.remote_query): clusters/project's memory selection and
// weights up to its `WITH gds.graph.project(`, then this. Same node rows (in id order, with
// `tie`) and the same directed relationship rows with their weights; the session turns them
// into one undirected FUSED edge per pair (SUM), as clusters/undirected does on the plugin.
// A remote projection returns only the graph, so no edge lists come back here.
RETURN gds.graph.project.remote(
         a, b,
         {sourceNodeProperties: CASE WHEN b IS NULL THEN {tie: tie} END,
          targetNodeProperties: null,
          relationshipProperties: CASE WHEN b IS NULL THEN null ELSE {weight: weight} END}
       ) AS g
