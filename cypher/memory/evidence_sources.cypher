// The sources that stand behind each memory as evidence (issue 50): a memory derived from
// nothing brings its own; a derived one (an insight, a reflection's statement: DERIVED_FROM
// edges not reverted) brings only the sources of the memories it rests on, followed down to
// those derived from nothing. A conclusion and its premises are one piece of evidence.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
RETURN id, CASE WHEN EXISTS { (m)-[d:DERIVED_FROM]->(:Memory) WHERE d.reverted_at IS NULL }
  THEN COLLECT {
    MATCH path = (m)-[:DERIVED_FROM*1..8]->(leaf:Memory)
    WHERE all(r IN relationships(path) WHERE r.reverted_at IS NULL)
      AND NOT EXISTS { (leaf)-[e:DERIVED_FROM]->(:Memory) WHERE e.reverted_at IS NULL }
    UNWIND coalesce(leaf.sources, [leaf.source]) AS s
    RETURN DISTINCT s ORDER BY s
  }
  ELSE coalesce(m.sources, [m.source]) END AS sources
