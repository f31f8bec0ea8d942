// One rating of a memory or an insight, kept as its own node (who, when, verdict, note);
// the memory's counts and its feedback weight component (Laplace: (useful+1)/(rated+2), 0.5
// before any rating, the default every memory starts with) follow in the same statement.
MATCH (m:Memory {id: $id})
CREATE (f:Feedback {id: $feedback_id, memory_id: $id, verdict: $verdict, note: $note, by: $by, at: $now})
CREATE (f)-[:ABOUT]->(m)
WITH m, m.weight_feedback AS before
SET m.feedback_useful = coalesce(m.feedback_useful, 0) + CASE WHEN $verdict = 'useful' THEN 1 ELSE 0 END,
    m.feedback_wrong = coalesce(m.feedback_wrong, 0) + CASE WHEN $verdict = 'wrong' THEN 1 ELSE 0 END
SET m.weight_feedback = (m.feedback_useful + 1.0) / (m.feedback_useful + m.feedback_wrong + 2.0)
RETURN m {.id, .kind, .feedback_useful, .feedback_wrong, .weight_feedback, .weight_manual, .weight_confidence,
          .weight_usage, .weight_decay, .effective_weight, .access_count, .last_accessed, .created_at} AS memory,
       before
