// Synthesis and proposals (issue 4): one bookkeeping node per cluster key, one precompute
// node per insight, proposals looked up by cluster key and kind.
CREATE CONSTRAINT synthesis_task_key IF NOT EXISTS FOR (t:SynthesisTask) REQUIRE t.cluster_key IS UNIQUE;
CREATE CONSTRAINT precomputed_insight IF NOT EXISTS FOR (p:Precomputed) REQUIRE p.insight_id IS UNIQUE;
CREATE INDEX proposal_cluster IF NOT EXISTS FOR (p:Proposal) ON (p.cluster_key);
CREATE INDEX proposal_kind IF NOT EXISTS FOR (p:Proposal) ON (p.kind, p.status);
// Insights carry the key of the cluster they summarise: a scan asks which of its accepted keys are
// summarised already (gate/summarised) without reading every memory (~1 s at 1M memories).
CREATE INDEX memory_cluster_key IF NOT EXISTS FOR (m:Memory) ON (m.cluster_key);
