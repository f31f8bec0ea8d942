// Reflection (issue 14): one profile per entity (key = namespace + '/' + subject), its
// version snapshots, and the per-subject lookups of the reflection job.
CREATE CONSTRAINT profile_key IF NOT EXISTS FOR (p:Profile) REQUIRE p.key IS UNIQUE;
CREATE INDEX profile_version_of IF NOT EXISTS FOR (v:ProfileVersion) ON (v.key, v.version);
CREATE INDEX memory_subject IF NOT EXISTS FOR (m:Memory) ON (m.namespace, m.subject);
