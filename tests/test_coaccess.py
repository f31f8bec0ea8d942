"""Co-access: counts per session, bounded pairs, access statistics, retrieval."""

import pytest

from graphcons.core.errors import NotFound, ValidationError


def pair_count(g, a, b):
    rows = g.db.run_text(
        "MATCH (:Memory {id: $a})-[r:CO_ACCESSED]-(:Memory {id: $b}) RETURN r.count AS n", a=a, b=b)
    return rows[0]["n"] if rows else 0


def _three(g):
    return [g.add({"content": text, "subject": "s"}).id for text in
            ("Disk usage alert on db-1", "Vacuum schedule for postgres", "Index bloat on the orders table")]


def test_coaccess_counts_add_up_across_sessions(g):
    a, b, c = _three(g)
    g.access("s1", [a, b])
    g.access("s2", [a, b, c])
    g.access("s3", [b, a])
    assert pair_count(g, a, b) == 3
    assert pair_count(g, a, c) == 1 and pair_count(g, b, c) == 1
    mem = g.get(a)
    assert mem.access_count == 3 and mem.last_accessed is not None


def test_one_session_counts_a_pair_once(g):
    a, b, c = _three(g)
    g.access("s1", [a, b])
    g.access("s1", [a, b])
    g.access("s1", [c])  # joins the session: pairs with a and b once
    assert pair_count(g, a, b) == 1
    assert pair_count(g, a, c) == 1 and pair_count(g, b, c) == 1
    assert g.get(a).access_count == 2  # every use is counted on the memory itself


def test_pairs_per_session_are_bounded(g):
    g.config.admission.coaccess_window = 4
    ids = [g.add({"content": f"Observation number {i} about the queue depth", "subject": f"q{i}"}).id
           for i in range(8)]
    g.access("big", ids)
    n = g.db.run_text("MATCH ()-[r:CO_ACCESSED]->() RETURN count(r) AS n")[0]["n"]
    assert n == 4 * 3 // 2


def test_access_rejects_unknown_ids_and_writes_nothing(g):
    a, _, _ = _three(g)
    with pytest.raises(NotFound):
        g.access("s1", [a, "m-nope"])
    assert g.get(a).access_count == 0
    with pytest.raises(ValidationError):
        g.access("", [a])


def test_retrieve_ranks_and_records_coaccess(g):
    ids = {
        "deploy": g.add({"content": "Checkout returned 503 errors after the deploy", "subject": "checkout"}).id,
        "rollback": g.add({"content": "Rolling back the deploy fixed the checkout 503s", "subject": "checkout"}).id,
        "lunch": g.add({"content": "The team lunch is on Thursday", "subject": "team"}).id,
    }
    hits = g.retrieve("why did checkout fail with 503 after deploying?", k=2, session="agent-1")
    assert {h.memory.id for h in hits} == {ids["deploy"], ids["rollback"]}
    assert hits[0].score >= hits[1].score
    assert pair_count(g, ids["deploy"], ids["rollback"]) == 1
    assert g.get(ids["lunch"]).access_count == 0


def test_keyword_search_finds_by_text(g):
    a = g.add({"content": "Kafka consumer lag exceeded 10k messages", "subject": "kafka"})
    g.add({"content": "The office plants need water", "subject": "office"})
    hits = g.search("kafka lag")
    assert [h.memory.id for h in hits] == [a.id]
