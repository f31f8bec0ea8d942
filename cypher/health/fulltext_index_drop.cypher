// `graphcons init` on a store made before issue 15: drop the consistent keyword index (schema only;
// every title and content stays on its memory) before cypher/schema/02_indexes creates it again,
// eventually consistent, from the stored text.
DROP INDEX memory_text IF EXISTS
