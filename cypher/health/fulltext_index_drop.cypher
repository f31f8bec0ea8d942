// `graphcons init` on a store made before issue 15 or 28: drop the old keyword index (schema only;
// every title and content stays on its memory) before cypher/schema/02_indexes creates it again,
// eventually consistent and with the scope fields, from the stored text.
DROP INDEX memory_text IF EXISTS
