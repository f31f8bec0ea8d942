// What the gate needs to know about each member, for communities streamed by a detector that ran
// outside this query (the graphdatascience client on the plugin, or an Aura Graph Analytics session,
// graphcons.consolidation.placement): $node[i] is a database node id, $community[i] its community.
// The same columns, in the same order, as clusters/label_propagation.
UNWIND range(0, size($node) - 1) AS i
MATCH (m:Memory) WHERE id(m) = $node[i]
WITH i, m ORDER BY i
RETURN collect($community[i]) AS community, collect($node[i]) AS node, collect(m.id) AS id,
       collect([m.namespace, m.subject, m.scope, m.title]) AS text,
       collect(coalesce(m.access_count, 0)) AS access_count,
       collect(toFloat(coalesce(m.activation, 0.0))) AS activation, collect(coalesce(m.version, 1)) AS version
