"""A store's put writes its SIMILAR edges after it returns (issue 63): the edges that land are the
ones `add` would have written in the same order, and nothing that reads the graph misses them."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta, timezone

from graphcons.store.linker import link_pending

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
TEXTS = [
    "The deploy pipeline needs a warm cache before the canary step.",
    "Warm the cache first, then run the canary deploy.",
    "Our canary deploys fail when the cache is cold.",
    "Alice prefers tea over coffee in the morning.",
    "Alice drinks green tea every morning.",
    "The cache warm-up script lives in ops/warm.sh.",
    "Bob moved the standup to 10 am.",
]


def _edges(g, namespace: str) -> set[tuple[int, int, float]]:
    """SIMILAR edges of a namespace as (position of source, position of target, score)."""
    rows = g.db.run_text("MATCH (a:Memory {namespace: $ns})-[s:SIMILAR]->(b:Memory) "
                         "RETURN a.content AS a, b.content AS b, s.score AS score", ns=namespace)
    return {(TEXTS.index(r["a"]), TEXTS.index(r["b"]), round(r["score"], 6)) for r in rows}


def _pending(g) -> int:
    return g.db.run_text("MATCH (m:Memory) WHERE m.similar_pending RETURN count(m) AS n")[0]["n"]


def test_put_links_after_it_returns_the_edges_add_would_write(g):
    for n, text in enumerate(TEXTS):
        at = T0 + timedelta(minutes=n)
        g.add({"content": text, "namespace": "added", "subject": "team"}, now=at)
        g.put({"id": f"k{n}", "content": text, "namespace": "put", "subject": "team"}, now=at)
    assert g.linker.wait(30), "the linker thread did not finish"
    assert _pending(g) == 0
    added = _edges(g, "added")
    assert added, "the texts share enough to be linked"
    assert _edges(g, "put") == added
    audit = g.audit_log(op="similar_link")
    assert audit and sum(len(a["targets"]) for a in audit) == len(TEXTS)


def test_a_put_whose_process_never_linked_is_linked_by_the_scan(g, config, embedder):
    from graphcons.api import Graphcons

    with Graphcons(config, embedder=embedder) as other:  # a process that put and stopped before its thread ran
        other.linker.poke = lambda: None
        for n, text in enumerate(TEXTS[:3]):
            other.put({"id": f"k{n}", "content": text, "namespace": "put", "subject": "team"},
                      now=T0 + timedelta(minutes=n))
    assert _pending(g) == 3 and not _edges(g, "put")
    g.scan(dry_run=True)
    assert _pending(g) == 0
    assert _edges(g, "put"), "the scan reads the fused graph only after the deferred edges are written"


def test_linking_twice_keeps_one_edge_per_pair(g):
    g.linker.poke = lambda: None
    for n, text in enumerate(TEXTS[:3]):
        g.put({"id": f"k{n}", "content": text, "namespace": "put", "subject": "team"}, now=T0 + timedelta(minutes=n))
    ids = [r["id"] for r in g.db.run_text("MATCH (m:Memory) WHERE m.similar_pending RETURN m.id AS id")]
    assert link_pending(g.db, g.config) == 3
    first = _edges(g, "put")
    g.db.run_text("MATCH (m:Memory) WHERE m.id IN $ids SET m.similar_pending = true", ids=ids)  # a second linker
    assert link_pending(g.db, g.config) == 3
    assert _edges(g, "put") == first
    pairs = g.db.run_text("MATCH (a:Memory {namespace: 'put'})-[s:SIMILAR]-(b:Memory) WHERE a.id < b.id "
                          "RETURN a.id AS a, b.id AS b, count(s) AS n")
    assert pairs and all(r["n"] == 1 for r in pairs)


def test_a_second_put_of_a_key_is_a_new_version_not_a_second_memory(g):
    first = g.put({"id": "k1", "content": "I live in Paris.", "namespace": "put", "subject": "u"})
    again = g.put({"id": "k1", "content": "I live in Berlin now.", "namespace": "put", "subject": "u"})
    assert first.created and again.id == "k1" and again.version == 2
    assert g.get("k1").content == "I live in Berlin now."


BLOCKED = "SHOW TRANSACTIONS YIELD status WHERE status STARTS WITH 'Blocked' RETURN count(*) AS n"


def test_two_writers_linking_a_new_pair_at_once_leave_one_edge(g):
    """Issue 60: similar/link MERGEs a new pair's edge. Before, it looked for an edge (OPTIONAL MATCH),
    found none while the first writer's was not committed yet, and CREATEd a second one."""
    a, b = (g.add({"content": TEXTS[i], "namespace": "race", "subject": "team"}, now=T0 + timedelta(minutes=i)).id
            for i in (3, 6))
    count = "MATCH (:Memory {id: $a})-[s:SIMILAR]-(:Memory {id: $b}) RETURN count(s) AS n"
    assert g.db.run_text(count, a=a, b=b)[0]["n"] == 0, "the two texts are too far apart to be linked at admission"
    link = {"id": b, "neighbours": [{"id": a, "score": 0.9}]}
    failed: list[BaseException] = []

    def second() -> None:
        try:
            g.db.write(lambda tx: tx.run("similar/link", **link))
        except BaseException as exc:  # noqa: BLE001 (reported by the assertion below)
            failed.append(exc)

    with g.db.transaction() as first:
        first.run("similar/link", **link)  # written, not committed: the pair's nodes are locked
        thread = threading.Thread(target=second)
        thread.start()
        deadline = time.monotonic() + 60
        while g.db.run_text(BLOCKED)[0]["n"] < 1 and thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
    thread.join(60)
    assert not failed and not thread.is_alive()
    assert g.db.run_text(count, a=a, b=b)[0]["n"] == 1
