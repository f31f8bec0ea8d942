// The end of clusters/project_parts when the subgraphs go to an Aura Graph Analytics session
// (graphcons.consolidation.placement.remote_query): the same rows and community labels, projected
// remotely; the relationships are made undirected by the projection call.
RETURN gds.graph.project.remote(
         a, b,
         {sourceNodeLabels: $label[a.id],
          targetNodeLabels: CASE WHEN b IS NULL THEN null ELSE $label[b.id] END,
          relationshipProperties: CASE WHEN b IS NULL THEN null ELSE {weight: weight} END}
       ) AS g
