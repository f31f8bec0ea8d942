// One rating of a memory or an insight, kept as its own node (who, when, verdict, note). A rater's
// new rating replaces its earlier one on the same memory (`replaced_by` on the old node, nothing
// deleted): one principal's feedback on one memory counts once, like evidence from one source.
// The memory's counts are those of the raters' current ratings and its feedback weight component
// follows (Laplace: (useful+1)/(rated+2), 0.5 before any rating, the default every memory starts with).
MATCH (m:Memory {id: $id})
WITH m, m.weight_feedback AS before
SET m.feedback_useful = coalesce(m.feedback_useful, 0)  // the memory's write lock first: two ratings of one rater queue
WITH m, before
OPTIONAL MATCH (old:Feedback)-[:ABOUT]->(m)
WHERE old.by = $by AND old.replaced_by IS NULL
SET old.replaced_by = $feedback_id
WITH m, before, collect(old.verdict) AS replaced
CREATE (f:Feedback {id: $feedback_id, memory_id: $id, verdict: $verdict, note: $note, by: $by, at: $now})
CREATE (f)-[:ABOUT]->(m)
WITH m, before, replaced
CALL (m) {
  MATCH (r:Feedback)-[:ABOUT]->(m)
  WHERE r.replaced_by IS NULL
  RETURN count(CASE WHEN r.verdict = 'useful' THEN 1 END) AS useful,
         count(CASE WHEN r.verdict = 'wrong' THEN 1 END) AS wrong
}
SET m.feedback_useful = useful, m.feedback_wrong = wrong
SET m.weight_feedback = (m.feedback_useful + 1.0) / (m.feedback_useful + m.feedback_wrong + 2.0)
RETURN m {.id, .kind, .feedback_useful, .feedback_wrong, .weight_feedback, .weight_manual, .weight_confidence,
          .weight_usage, .weight_decay, .effective_weight, .access_count, .last_accessed, .created_at} AS memory,
       before, head(replaced) AS replaced
