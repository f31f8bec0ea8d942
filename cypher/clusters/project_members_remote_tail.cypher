// The end of clusters/project_members when the subgraph goes to an Aura Graph Analytics session
// (graphcons.consolidation.placement.remote_query): the same rows, projected remotely; the
// relationships are made undirected by the projection call (undirected_relationship_types).
RETURN gds.graph.project.remote(
         a, b,
         {relationshipProperties: CASE WHEN b IS NULL THEN null ELSE {weight: weight} END}
       ) AS g
