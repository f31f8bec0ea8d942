// The community prior (issue 39): a scan clears the communities it no longer finds by this index
// instead of reading every memory.
CREATE INDEX memory_community IF NOT EXISTS FOR (m:Memory) ON (m.community);
