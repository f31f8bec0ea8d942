// Write the chosen SIMILAR edges from memory $id (score = exact cosine). A pair already
// linked, in either direction, keeps its one edge with the new score (re-runs are idempotent);
// a new pair's edge is MERGEd, so two writers racing on the same pair leave one edge.
MATCH (m:Memory {id: $id})
UNWIND $neighbours AS nb
MATCH (n:Memory {id: nb.id})
CALL (m, n, nb) {
  OPTIONAL MATCH (m)-[e:SIMILAR]-(n)
  WITH m, n, nb, collect(e) AS existing
  FOREACH (e IN existing | SET e.score = nb.score)
  FOREACH (_ IN CASE WHEN size(existing) = 0 THEN [1] ELSE [] END |
    MERGE (m)-[s:SIMILAR]->(n)
    SET s.score = nb.score)
}
RETURN count(n) AS linked
