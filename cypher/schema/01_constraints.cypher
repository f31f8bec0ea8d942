// Applied idempotently by `graphcons init` (every statement is IF NOT EXISTS).
CREATE CONSTRAINT memory_id IF NOT EXISTS FOR (m:Memory) REQUIRE m.id IS UNIQUE;
CREATE CONSTRAINT session_id IF NOT EXISTS FOR (s:Session) REQUIRE s.id IS UNIQUE;
CREATE CONSTRAINT proposal_id IF NOT EXISTS FOR (p:Proposal) REQUIRE p.id IS UNIQUE;
CREATE CONSTRAINT audit_id IF NOT EXISTS FOR (a:Audit) REQUIRE a.id IS UNIQUE;
CREATE CONSTRAINT store_key IF NOT EXISTS FOR (s:GraphconsStore) REQUIRE s.key IS UNIQUE;
