// Migration (issue 60): consolidate proposals stored before every kind kept what it proposes
// under `payload` (their insight, themes, gate figures, context ids and confidence at the top
// level), one batch at a time.
MATCH (p:Proposal {kind: $kind})
WHERE p.payload IS NULL
RETURN p.id AS id, p.insight AS insight, p.themes AS themes, p.gate_figures AS gate_figures,
       p.context_ids AS context_ids, p.confidence AS confidence
ORDER BY p.id
LIMIT $batch
