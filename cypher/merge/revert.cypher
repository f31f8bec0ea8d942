// Revert one applied merge. The SUPERSEDES edge is kept, marked reverted (retrieval and
// every query ignore reverted edges); the loser gets its status back; the winner gives
// back the sources and access counts the merge added.
MATCH (w:Memory)-[s:SUPERSEDES {proposal: $proposal_id}]->(l:Memory)
WHERE NOT coalesce(s.reverted, false)
WITH w, l, s, w {.id, .sources, .evidence_count, .access_count, .last_accessed} AS before, l.status AS loser_was
SET s.reverted = true, s.reverted_at = $now, s.reverted_run_id = $run_id
SET w.sources = [x IN coalesce(w.sources, []) WHERE NOT x IN s.added_sources]
SET w.evidence_count = size(w.sources),
    w.access_count = coalesce(w.access_count, 0) - s.added_access,
    w.repetitions = coalesce(w.repetitions, 0) - s.added_repetitions,
    w.last_accessed = CASE WHEN w.last_accessed = s.winner_last_accessed_after
                           THEN s.winner_last_accessed_before ELSE w.last_accessed END,
    w.merged_count = coalesce(w.merged_count, 1) - 1
SET l.status = CASE WHEN l.status = 'deprecated' AND l.deprecated_reason = 'merged'
                    THEN coalesce(s.loser_status_before, 'active') ELSE l.status END,
    l.restored_at = $now, l.superseded_by = null
RETURN before, w {.id, .sources, .evidence_count, .access_count, .last_accessed} AS after,
       loser_was, l.status AS loser_now, w.id AS winner, l.id AS loser
