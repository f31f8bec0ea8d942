// Lookups graphcons makes: exact duplicates by hash within subject and namespace,
// status scans of the background jobs, version history, audit by operation and time.
CREATE INDEX memory_dedup IF NOT EXISTS FOR (m:Memory) ON (m.namespace, m.subject, m.content_hash);
CREATE INDEX memory_status IF NOT EXISTS FOR (m:Memory) ON (m.status);
CREATE INDEX memory_namespace IF NOT EXISTS FOR (m:Memory) ON (m.namespace);
CREATE INDEX memory_scope IF NOT EXISTS FOR (m:Memory) ON (m.namespace, m.subject);
CREATE INDEX memory_version_of IF NOT EXISTS FOR (v:MemoryVersion) ON (v.memory_id, v.version);
CREATE INDEX audit_op_at IF NOT EXISTS FOR (a:Audit) ON (a.op, a.at);
CREATE INDEX proposal_status IF NOT EXISTS FOR (p:Proposal) ON (p.status);
// Keyword search. Eventually consistent (issue 15): Lucene takes the update after the commit
// instead of inside it (an admission's commit at 100k stored: ~10 ms with a consistent index,
// ~4 ms with this one; bench/store/admission.py commit_ms_by_index). Search first waits for pending
// updates (cypher/retrieval/fulltext), so a memory is found right after its admission.
// namespace and subject are indexed too, only for the scope's required clauses (issue 28: a
// subject's matches without first reading the whole store's); the text is matched in title and content.
CREATE FULLTEXT INDEX memory_text IF NOT EXISTS FOR (m:Memory) ON EACH [m.title, m.content, m.namespace, m.subject]
OPTIONS {indexConfig: {`fulltext.eventually_consistent`: true}};
