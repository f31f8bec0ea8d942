// Keyword search over title and content, live memories of the scope only ($namespace and/or
// $subject, null = any). $text is the Lucene query graphcons.recall.lists.keyword_query builds:
// the escaped user text (never query syntax) in title and content, and the scope as required
// phrase clauses on the indexed namespace and subject (a superset: the filter below is exact).
// The index is asked for its best $candidates matches only (the `limit` option), not
// every match: at 100k memories a common word matched tens of thousands of nodes, each filtered,
// sorted and projected (issue 28). The caller widens $candidates until the answer is exact:
// `returned` < $candidates (every match was seen) or the k-th in-scope score is strictly above
// `floor`, the lowest score the index returned (no unseen match can reach the top k, ties
// included). Only the top $k are projected. BM25 does not depend on the limit.
// The index is eventually consistent (cypher/schema/02_indexes): wait for its pending updates
// first, in this same query, so a search sees what was just admitted.
CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()
CALL db.index.fulltext.queryNodes('memory_text', $text, {limit: $candidates}) YIELD node, score
WITH count(node) AS returned, min(score) AS floor,
     collect(CASE WHEN node.status IN $live AND ($namespace IS NULL OR node.namespace = $namespace)
                       AND ($subject IS NULL OR node.subject = $subject) THEN [node, score] END) AS scoped
CALL (scoped) {
  UNWIND scoped AS hit
  WITH hit[0] AS node, hit[1] AS score
  ORDER BY score DESC, node.id
  LIMIT $k
  RETURN collect({memory: node {.id, .kind, .epistemic_status}, score: score}) AS hits
}
RETURN returned, floor, hits
