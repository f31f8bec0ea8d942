// The vector list of a retrieval scope ($namespace and/or $subject, either may be null), in one
// round trip (issue 52: it was two at 100k, the scope's size then the index):
// - a scope of at most $exact_max memories is scanned exactly (its top $k by cosine against every
//   memory of the scope, so the scope's top-k is never crowded out by other scopes);
// - a larger one (or $large: the caller knows it is, recall/lists.py; scopes never shrink) reads
//   the nearest $candidates store-wide from the vector index, kept when inside the scope, with the
//   index's own score; the caller widens $candidates until k hits come back. So does a scope of at
//   least $index_min memories holding at least $index_share of the store (issue 63: one user's
//   store; the index's nearest are mostly its own, and reading 1,000 stored vectors cost ~12 ms
//   where the index answers in ~4).
// Both give the same cosine: the index (cypher/schema/03_vector) is built without quantization and
// vector.similarity.cosine is the index provider's function (the Cypher manual says so), so the
// score queryNodes returns, (1 + cosine) / 2, equals the function on the stored embedding bit for
// bit (40 queries x 200 candidates checked at 10k memories). Re-scoring cost ~3 ms a call (issue 52).
// Either way a deprecated hit is replaced by the live memory that SUPERSEDES it (following the
// chain; reverted SUPERSEDES edges are ignored, and so are updates, reason 'update': the older memory
// stays a hit of its own, shown after its successor by graphcons.recall.current): the one place
// retrieval's winner replacement is written. Ties are broken by id. With $as_of (issue 62: what was
// visible then) $live holds every status and an edge counts only when it was applied by then (`at`) and
// not reverted by then: a memory merged away later is its own hit, graphcons.recall.current keeps it
// when it was live at $as_of.
// Each scope branch tests its parameters before it matches: a test after the MATCH ran on every
// row of a seek it rejects (100k index entries for a subject scope at 100k memories, ~30 ms).
// The index must be ONLINE: db.awaitIndex with no wait fails at once when it is missing
// (IndexNotFound) or being rebuilt (ProcedureTimedOut), where queryNodes would block until it is
// online (28 s at 100k memories); the caller then scans the scope exactly ($exact_max unlimited).
CALL () {
  MATCH (node:Memory {namespace: $namespace, subject: $subject}) RETURN node
  UNION
  WITH 1 AS branch WHERE $namespace IS NOT NULL AND $subject IS NULL
  MATCH (node:Memory {namespace: $namespace}) RETURN node
  UNION
  WITH 1 AS branch WHERE $namespace IS NULL AND $subject IS NOT NULL
  MATCH (node:Memory {subject: $subject}) RETURN node
  UNION
  WITH 1 AS branch WHERE $namespace IS NULL AND $subject IS NULL
  MATCH (node:Memory) RETURN node
}
WITH node LIMIT CASE WHEN $large THEN 0 ELSE $exact_max + 1 END  // enough to know the scope is too large
WITH collect(node) AS scope
CALL () { MATCH (n:Memory) RETURN count(n) AS store }  // the count store: the widest pool the index can return
WITH scope, store, $large OR size(scope) > $exact_max OR (size(scope) >= $index_min AND size(scope) >= $index_share * store)
     AS indexed
CALL (scope, indexed) {
  CALL (scope, indexed) {
    UNWIND CASE WHEN indexed THEN [] ELSE scope END AS node
    RETURN node, vector.similarity.cosine($embedding, node.embedding) AS score, null AS key
    UNION ALL
    // $keys (graphcons.store.keys): a memory is also found by each key of its current version
    UNWIND CASE WHEN indexed OR NOT $keys THEN [] ELSE scope END AS node
    MATCH (node)<-[:KEY_OF]-(k:Key)
    WHERE k.version = node.version
    RETURN node, vector.similarity.cosine($embedding, k.embedding) - $key_discount / 2 AS score, k.text AS key
    UNION ALL
    WITH indexed WHERE indexed
    CALL db.awaitIndex('memory_embedding', 0)
    CALL db.index.vector.queryNodes('memory_embedding', $candidates, $embedding) YIELD node, score
    WITH node, score WHERE ($namespace IS NULL OR node.namespace = $namespace) AND ($subject IS NULL OR node.subject = $subject)
    RETURN node, score, null AS key
    UNION ALL
    WITH indexed WHERE indexed AND $keys
    CALL db.awaitIndex('key_embedding', 0)
    CALL db.index.vector.queryNodes('key_embedding', $candidates, $embedding) YIELD node AS k, score
    WHERE ($namespace IS NULL OR k.namespace = $namespace) AND ($subject IS NULL OR k.subject = $subject)
    MATCH (k)-[:KEY_OF]->(node:Memory)
    WHERE k.version = node.version
    RETURN node, score - $key_discount / 2 AS score, k.text AS key
  }
  // a memory's best way in: itself or one of its keys (the key's text said when it won); a key's cosine
  // counts $key_discount below the memory's own (scores here are (1 + cosine) / 2, hence the half)
  WITH node, score, key
  ORDER BY score DESC, key
  WITH node, collect([score, key])[0] AS best  // a pair: collect() drops a bare null (the memory itself)
  WITH node, best[0] * 2 - 1 AS cosine, best[1] AS key
  OPTIONAL MATCH path = (winner:Memory)-[:SUPERSEDES*1..5]->(node)
  WHERE winner.status IN $live
    AND all(r IN relationships(path) WHERE coalesce(r.reason, '') <> 'update' AND
            CASE WHEN $as_of IS NULL THEN NOT coalesce(r.reverted, false)
                 ELSE r.at <= $as_of AND (NOT coalesce(r.reverted, false) OR r.reverted_at > $as_of) END)
  WITH node, cosine, key, winner, path
  ORDER BY length(path) DESC
  WITH node, cosine, key, head(collect(winner)) AS winner
  WITH coalesce(winner, node) AS hit, cosine, CASE WHEN winner IS NULL THEN key END AS key,
       CASE WHEN winner IS NULL THEN null ELSE node.id END AS via
  WHERE hit.status IN $live
  WITH hit, cosine, key, via
  ORDER BY cosine DESC
  WITH hit, collect([cosine, key])[0] AS best, collect(via) AS via
  WITH hit, best[0] AS cosine, best[1] AS key, via
  ORDER BY cosine DESC, hit.id
  LIMIT $k
  // One row holding the list: streaming a hundred records costs the driver more than the query (issue 39).
  RETURN collect({memory: hit {.id, .kind, .epistemic_status}, cosine: cosine, key: key,
                  superseded: [v IN via WHERE v IS NOT NULL]}) AS hits
}
RETURN size(scope) AS size, indexed, hits, store  // size: capped at $exact_max + 1 (0 when $large)
