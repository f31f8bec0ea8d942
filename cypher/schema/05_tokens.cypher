// API tokens (issue 16): one node per token, found by the hash of the token (never stored in clear).
CREATE CONSTRAINT api_token_id IF NOT EXISTS FOR (t:ApiToken) REQUIRE t.id IS UNIQUE;
CREATE CONSTRAINT api_token_hash IF NOT EXISTS FOR (t:ApiToken) REQUIRE t.hash IS UNIQUE;
