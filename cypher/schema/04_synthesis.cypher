// Synthesis and proposals (issue 4): one bookkeeping node per cluster key, one precompute
// node per insight, proposals looked up by cluster key and kind.
CREATE CONSTRAINT synthesis_task_key IF NOT EXISTS FOR (t:SynthesisTask) REQUIRE t.cluster_key IS UNIQUE;
CREATE CONSTRAINT precomputed_insight IF NOT EXISTS FOR (p:Precomputed) REQUIRE p.insight_id IS UNIQUE;
CREATE INDEX proposal_cluster IF NOT EXISTS FOR (p:Proposal) ON (p.cluster_key);
CREATE INDEX proposal_kind IF NOT EXISTS FOR (p:Proposal) ON (p.kind, p.status);
