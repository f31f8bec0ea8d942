// What the ranking's group steps read about each candidate in $ids, in one round trip (issue 39):
// its stored community (latest scan, cypher/clusters/communities_store.cypher) when $communities;
// when $digest, the live insights in the scope that cite it (DERIVED_FROM, not reverted) and
// whether it cites anything itself (a derived memory carries what it cites).
UNWIND $ids AS id
MATCH (m:Memory {id: id})
// One row holding the list: streaming a record per candidate cost ~10 ms of 20 at 250 candidates.
RETURN collect({
         id: m.id,
         community: CASE WHEN $communities THEN m.community END, size: m.community_size,
         citing: CASE WHEN $digest AND m.kind <> 'insight' THEN
           [(i:Memory {kind: 'insight'})-[r:DERIVED_FROM]->(m)
             WHERE NOT coalesce(r.reverted, false) AND i.status IN $live
               AND ($namespace IS NULL OR i.namespace = $namespace) AND ($subject IS NULL OR i.subject = $subject)
             | i {.id, .kind, .epistemic_status}]
           ELSE [] END,
         derived: $digest AND EXISTS { (m)-[d:DERIVED_FROM]->() WHERE NOT coalesce(d.reverted, false) }}) AS groups
