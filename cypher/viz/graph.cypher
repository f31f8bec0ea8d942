// The memories named by $ids and every graphcons relationship among them (one row each), for
// a picture: SIMILAR {score}, LINKED {kind}, CO_ACCESSED {count}, SUMMARIZES, DERIVED_FROM,
// SUPERSEDES, CONFLICTS_WITH.
MATCH (m:Memory) WHERE m.id IN $ids
WITH collect(m) AS nodes
UNWIND nodes AS a
OPTIONAL MATCH (a)-[r:SIMILAR|LINKED|CO_ACCESSED|SUMMARIZES|DERIVED_FROM|SUPERSEDES|CONFLICTS_WITH]->(b:Memory)
WHERE b IN nodes
WITH nodes, collect(CASE WHEN r IS NULL THEN null ELSE
       {source: a.id, target: b.id, type: type(r), score: r.score, count: r.count, kind: r.kind,
        reverted: coalesce(r.reverted, false) OR r.reverted_at IS NOT NULL} END) AS rels
RETURN [n IN nodes | n {.id, .kind, .status, .title, .subject, .namespace, .epistemic_status, .effective_weight}]
         AS nodes, rels
