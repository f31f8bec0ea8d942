// Insight-aware results: the live insights that summarise each memory in $ids.
UNWIND $ids AS mid
MATCH (i:Memory)-[r:SUMMARIZES]->(:Memory {id: mid})
WHERE NOT coalesce(r.reverted, false) AND i.status IN $live
WITH mid, i ORDER BY mid, i.id
RETURN mid AS id, collect({id: i.id, title: i.title, epistemic_status: i.epistemic_status}) AS insights
