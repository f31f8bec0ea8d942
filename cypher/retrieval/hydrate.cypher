// What a result shows, read once (issue 52: the grouping and the hydration in one round trip). The
// ranking itself moves only each hit's head (id, kind, epistemic status), since reading every
// candidate's properties cost more than the index lookups at 100k memories (issue 28).
// 1. `shown`: the walk down the ranking ($order: [id, carrier, insight] best first) that picks what is
//    shown, as [id, members or null] in order; graphcons.recall.retrieval documents it (`_grouped`):
//    - a place already shown (a member an earlier carrier showed) is skipped; the walk ends once $k
//      places are taken;
//    - a carrier (an insight, and with $digest a memory that may cite: the caller says which) shows
//      its live members not shown yet: with $digest those it DERIVED_FROM (the members whose facts its
//      text states), all of them, taking no place; else those it SUMMARIZES, each taking a place, at
//      most $per_insight. Reverted links are ignored; the most relevant to the query first
//      ($embedding null: relevance 0, by id), as [member id, relevance];
//    - an insight, or a carrier with a live member, gets its members (maybe none left); any other
//      place null;
//    - a carrier the caller marks as routing ($order's 4th field, issue 61) takes no place itself:
//      its live member (DERIVED_FROM) closest to the query that is not shown yet takes it, as
//      [member id, null, carrier id]; all shown: nothing; one that cites no live memory is a place
//      of its own (an insight with no members left). Its text and its members' texts come back
//      in `judged` ([id, content, member contents]), for the caller's test (graphcons.recall.route).
//    Each place is [id, members or null, the carrier it was routed from or null].
//    The members are read for the carriers the walk reaches only (one subquery each); before, the
//    graph step read them for every candidate carrier (~600 members after consolidation at 10k).
//    An ungrouped result sends no carrier and no insight flag: the first $k places, members null.
// 2. `memories`: the shown memories and members, each as [fields, instants, insights, newer, episodes]:
//    - fields: its properties but its embedding, as [key, value] pairs; instants: its zoned date-times
//      as text ([key, ISO-8601]), which graphcons.core.time.memory_fields reads back into the datetimes
//      the driver would give (the driver's own decoding of ~40 of them cost ~3 ms a call). A date-time
//      in a named zone ("...[Europe/Paris]") travels as itself. Embeddings never leave the database.
//    - insights, with $summarised (a grouped ranking): the live insights that summarise it
//      (insight-aware results; SUMMARIZES not reverted), by id.
//    - newer: the live memories that state a newer value of what it says (issue 51: an applied update,
//      SUPERSEDES {reason: 'update'} not reverted; the older stays live) or a pending `update` proposal
//      (issue 62: the newer value first before anyone reviews it; a rejected one stops counting), each
//      with `update` 'applied' | 'pending' and its times (a restricting `when` window ignores one outside
//      it), for graphcons.recall.current to show them first. A degree check per memory when there are none.
//    - episodes, for an insight: its source episodes, what `explain` lists as its `sources` (the memories
//      at the bottom of its SUMMARIZES / DERIVED_FROM links, insights over insights included), oldest
//      first; MCP's recall shows them without a provenance walk per hit (issue 60). Empty for any other.
WITH reduce(st = {shown: [], used: 0, out: [], routed: []}, h IN $order |
  CASE WHEN st.used >= $k OR h[0] IN st.shown THEN st
  WHEN h[3] THEN  // a carrier that routes (issue 61): its best member not shown yet takes its place
    [cited IN [COLLECT { MATCH (:Memory {id: h[0]})-[r:DERIVED_FROM]->(m:Memory)
                         WHERE NOT coalesce(r.reverted, false) AND m.status IN $live
                         WITH m, CASE WHEN $embedding IS NULL THEN 0.0 ELSE
                                   vector.similarity.cosine($embedding, m.embedding) END AS relevance
                         ORDER BY relevance DESC, m.id
                         RETURN m.id }] |
      CASE WHEN size(cited) = 0  // it cites no live memory: a place of its own
             THEN st {.*, shown: st.shown + [h[0]], used: st.used + 1,
                      out: st.out + [[h[0], CASE WHEN h[2] THEN [] END, null]]}
           ELSE [best IN [[x IN cited WHERE NOT x IN st.shown]] |
                 CASE WHEN size(best) = 0 THEN st {.*, shown: st.shown + [h[0]]}  // all shown: no place
                      ELSE {shown: st.shown + [h[0], best[0]], used: st.used + 1,
                            out: st.out + [[best[0], null, h[0]]], routed: st.routed + [h[0]]} END][0] END][0]
  ELSE [walked IN [reduce(s = {shown: st.shown + [h[0]], used: st.used + 1, nested: [], cited: 0, done: false},
                          x IN CASE WHEN NOT h[1] THEN []
                                    WHEN $digest THEN
                                      COLLECT { MATCH (:Memory {id: h[0]})-[r:DERIVED_FROM]->(m:Memory)
                                                WHERE NOT coalesce(r.reverted, false) AND m.status IN $live
                                                WITH m, CASE WHEN $embedding IS NULL THEN 0.0 ELSE
                                                          vector.similarity.cosine($embedding, m.embedding) * 2 - 1 END AS relevance
                                                ORDER BY relevance DESC, m.id
                                                RETURN [m.id, relevance] }
                                    ELSE
                                      COLLECT { MATCH (:Memory {id: h[0]})-[r:SUMMARIZES]->(m:Memory)
                                                WHERE NOT coalesce(r.reverted, false) AND m.status IN $live
                                                WITH m, CASE WHEN $embedding IS NULL THEN 0.0 ELSE
                                                          vector.similarity.cosine($embedding, m.embedding) * 2 - 1 END AS relevance
                                                ORDER BY relevance DESC, m.id
                                                RETURN [m.id, relevance] } END |
                          CASE WHEN s.done THEN s {.*, cited: s.cited + 1}
                               WHEN NOT $digest AND (size(s.nested) >= $per_insight OR s.used >= $k)
                                 THEN s {.*, cited: s.cited + 1, done: true}
                               WHEN x[0] IN s.shown THEN s {.*, cited: s.cited + 1}
                               ELSE {shown: s.shown + [x[0]], used: s.used + CASE WHEN $digest THEN 0 ELSE 1 END,
                                     nested: s.nested + [x], cited: s.cited + 1, done: false} END)] |
        {shown: walked.shown, used: walked.used, routed: st.routed,
         out: st.out + [[h[0], CASE WHEN h[2] OR walked.cited > 0 THEN walked.nested END, null]]}][0]
  END) AS walk
WITH walk.out AS shown, walk.routed AS routed
CALL (routed) {  // what the caller judges a routed carrier by: its text and its members' (recall/route.py)
  UNWIND routed AS id
  MATCH (i:Memory {id: id})
  RETURN collect([id, i.content, COLLECT { MATCH (i)-[r:DERIVED_FROM]->(m:Memory)
                                           WHERE NOT coalesce(r.reverted, false) AND m.status IN $live
                                           RETURN m.content ORDER BY m.id }]) AS judged
}
CALL (shown) {
  UNWIND [p IN shown | p[0]] + reduce(ids = [], p IN shown | ids + [x IN coalesce(p[1], []) | x[0]]) AS id
  MATCH (m:Memory {id: id})
  WITH m, [k IN keys(m) WHERE m[k] IS :: ZONED DATETIME AND NOT toString(m[k]) CONTAINS '['] AS instants
  RETURN collect([
    [k IN keys(m) WHERE k <> 'embedding' AND NOT k IN instants | [k, m[k]]],
    [k IN instants | [k, toString(m[k])]],
    CASE WHEN $summarised THEN
      COLLECT { MATCH (i:Memory)-[r:SUMMARIZES]->(m)
                WHERE NOT coalesce(r.reverted, false) AND i.status IN $live
                WITH DISTINCT i ORDER BY i.id
                RETURN {id: i.id, title: i.title, epistemic_status: i.epistemic_status} }
    ELSE [] END,
    COLLECT { MATCH (n:Memory)-[s:SUPERSEDES {reason: 'update'}]->(m)
              WHERE NOT coalesce(s.reverted, false) AND n.status IN $live
              RETURN {id: n.id, since: s.since, created_at: n.created_at, namespace: n.namespace,
                      subject: n.subject, event_start: n.event_start, event_end: n.event_end,
                      update: 'applied'} AS u
              UNION
              // a pending update counts before anyone reviews it (issue 62); a rejected one never
              MATCH (p:Proposal {kind: 'update', status: 'pending'})-[:ABOUT]->(m)
              WHERE p.memory_ids[1] = m.id
              MATCH (n:Memory {id: p.memory_ids[0]}) WHERE n.status IN $live
              RETURN {id: n.id, since: p.since, created_at: n.created_at, namespace: n.namespace,
                      subject: n.subject, event_start: n.event_start, event_end: n.event_end,
                      update: 'pending'} AS u },
    // the kind is tested inside: the planner filters on it before the expansion, for every other memory
    COLLECT { MATCH (m)-[:SUMMARIZES|DERIVED_FROM*1..9]->(e:Memory)
              WHERE m.kind = 'insight' AND NOT EXISTS { (e)-[:SUMMARIZES|DERIVED_FROM]->(:Memory) }
              WITH DISTINCT e ORDER BY e.created_at, e.id
              RETURN e.id }]) AS memories
}
RETURN shown, memories, judged
