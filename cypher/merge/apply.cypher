// Apply one merge: (winner)-[:SUPERSEDES]->(loser); the loser is deprecated (still
// addressable, history kept); the winner gains the loser's distinct sources (evidence)
// and access statistics. What was added is kept on the edge so the merge can be reverted. A
// loser derived from other memories (a statement, an insight) adds no source: its evidence is
// its premises' (issue 50; the merge job no longer pairs such a memory at all).
MATCH (w:Memory {id: $winner}), (l:Memory {id: $loser})
WHERE w.status IN $live AND l.status IN $live AND w.namespace = l.namespace AND w.subject = l.subject
WITH w, l, EXISTS { (l)-[d:DERIVED_FROM|SUMMARIZES]->(:Memory) WHERE d.reverted_at IS NULL } AS derived
WITH w, l, w {.id, .status, .sources, .evidence_count, .access_count, .last_accessed, .effective_weight} AS before,
     l.status AS loser_status,
     CASE WHEN derived THEN [] ELSE [s IN coalesce(l.sources, []) WHERE NOT s IN coalesce(w.sources, [])] END AS added
MERGE (w)-[s:SUPERSEDES {proposal: $proposal_id}]->(l)
SET s.reason = 'merge', s.at = $now, s.run_id = $run_id, s.score = $score, s.reverted = false,
    s.added_sources = added, s.added_access = coalesce(l.access_count, 0),
    s.added_repetitions = coalesce(l.repetitions, 0),
    s.loser_status_before = loser_status, s.winner_last_accessed_before = w.last_accessed
SET w.sources = coalesce(w.sources, []) + added
SET w.evidence_count = size(w.sources),
    w.access_count = coalesce(w.access_count, 0) + coalesce(l.access_count, 0),
    w.repetitions = coalesce(w.repetitions, 0) + coalesce(l.repetitions, 0),
    w.last_accessed = CASE WHEN l.last_accessed IS NOT NULL AND (w.last_accessed IS NULL OR l.last_accessed > w.last_accessed)
                           THEN l.last_accessed ELSE w.last_accessed END,
    w.merged_count = coalesce(w.merged_count, 0) + 1
SET s.winner_last_accessed_after = w.last_accessed
SET l.status_before = loser_status, l.status = 'deprecated', l.deprecated_at = $now,
    l.deprecated_reason = 'merged', l.superseded_by = w.id
RETURN before,
       w {.id, .status, .sources, .evidence_count, .access_count, .last_accessed, .effective_weight} AS after,
       loser_status
