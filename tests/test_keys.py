"""Retrieval keys (issue 61 item 2): after the keys pass, a long memory is found by the one sentence
that answers a question, says which sentence found it, and explain shows its keys with their pass.
Keys are never memories; an edited memory is keyed again; the same store gives the same keys.
Real Neo4j, the facade."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

NS = "keys"
NOW = datetime(2024, 3, 1, tzinfo=timezone.utc)
LONG = ("We spent the whole weekend hiking around the lake with the kids and the weather was lovely. "
        "I started a new job as a nurse at the city hospital last Monday. "
        "Afterwards we had a picnic with sandwiches, lemonade and far too many cookies.")
OTHERS = ["My favourite employer ever was the little bakery downtown where I worked one summer.",
          "Hospitals are busy places on a Monday morning.",
          "The lake was cold but the kids swam anyway."]
Q = "Where did I start working recently?"


def _store(g):
    g.add({"id": "long", "content": LONG, "namespace": NS, "subject": "user"}, now=NOW)
    for i, text in enumerate(OTHERS):
        g.add({"id": f"other-{i}", "content": text, "namespace": NS, "subject": "user"}, now=NOW)


def _ids(hits):
    return [h.memory.id for h in hits]


def test_a_long_memory_is_found_by_the_sentence_that_answers(g):
    _store(g)
    assert g.config.retrieval.key_discount == 0.0  # the default: a key counts as the memory's own embedding
    hybrid = g.retrieve(Q, k=4, namespace=NS, record=False)
    before = g.retrieve(Q, k=4, namespace=NS, record=False, mode="vector")
    assert _ids(before)[0] != "long" and all(h.key is None for h in before)  # the whole turn is diluted
    report = g.keys(now=NOW)
    assert (report.keyed, report.keys) == (1, 3)  # only the memory of several sentences; one key each
    after = g.retrieve(Q, k=4, namespace=NS, record=False, mode="vector")
    assert _ids(after)[0] == "long"
    assert after[0].key == "I started a new job as a nurse at the city hospital last Monday."
    assert after[0].vector > before[_ids(before).index("long")].vector
    assert after[0].to_dict()["key"] == after[0].key  # the wire shape says which sentence found it
    fused = g.retrieve(Q, k=4, namespace=NS, record=False)  # hybrid too: its vector part is the key's
    assert fused[_ids(fused).index("long")].vector == after[0].vector > hybrid[_ids(hybrid).index("long")].vector
    # keys are never memories, and the context shows the memory's own words
    assert g.stats()["memories"] == 4
    ctx = g.context(Q, 200, namespace=NS, record=False)
    assert "long" in ctx.ids and LONG.split(". ")[1] in ctx.text
    shown = g.explain("long")["keys"]
    assert [k["text"] for k in shown] == [s if s.endswith(".") else s + "." for s in LONG.split(". ")]
    assert {k["source"] for k in shown} == {"sentence"} and {k["run"] for k in shown} == {report.run_id}


def test_a_key_counts_key_discount_below_the_memory_own_embedding(g):
    """`[retrieval] key_discount` (off by default): a memory found by one of its sentences yields to a
    memory whose whole text is nearly as near; a key far ahead still finds it."""
    _store(g)
    g.keys(now=NOW)
    plain = g.retrieve(Q, k=4, namespace=NS, record=False, mode="vector")
    g.config.retrieval.key_discount = 0.1
    shown = g.retrieve(Q, k=4, namespace=NS, record=False, mode="vector")
    assert _ids(plain)[0] == "long" and _ids(shown)[:2] == ["other-0", "long"]  # 0.602 - 0.1 < 0.524
    assert shown[1].vector == pytest.approx(plain[0].vector - 0.1, abs=1e-6) and shown[1].key == plain[0].key
    assert shown[0].vector == pytest.approx(plain[1].vector, abs=1e-6)  # a memory's own cosine is as it was
    hit = g.retrieve("I started a new job as a nurse at the city hospital", k=1, namespace=NS, record=False,
                     mode="vector")[0]
    assert hit.memory.id == "long" and "nurse" in hit.key


def test_keys_off_ranks_as_before_the_pass_and_a_rerun_writes_nothing(g):
    _store(g)
    before = g.retrieve(Q, k=4, namespace=NS, record=False)
    g.keys(now=NOW)
    ids_first = [k["id"] for k in g.explain("long")["keys"]]
    again = g.keys(now=NOW)
    assert (again.read, again.keys) == (0, 0)
    assert [k["id"] for k in g.explain("long")["keys"]] == ids_first
    g.config.retrieval.keys = False
    off = g.retrieve(Q, k=4, namespace=NS, record=False)
    assert [(h.memory.id, h.score) for h in off] == [(h.memory.id, h.score) for h in before]


def test_an_edited_memory_is_keyed_again_and_its_old_keys_stop_counting(g):
    _store(g)
    g.keys(now=NOW)
    g.edit("long", content="We hiked around the lake all weekend. Our picnic had far too many cookies. "
                           "You should try the trail on the north shore sometime.")
    hits = g.retrieve(Q, k=4, namespace=NS, record=False, mode="vector")
    assert all(h.key is None or "nurse" not in h.key for h in hits)  # the old version's keys no longer count
    assert "keys" not in g.explain("long")
    report = g.keys(now=NOW)
    assert (report.read, report.keyed, report.keys) == (1, 1, 2)
    # the speaker's own sentences only: advice in the second person is found by the whole memory
    assert [k["text"] for k in g.explain("long")["keys"]] == ["We hiked around the lake all weekend.",
                                                              "Our picnic had far too many cookies."]


def test_the_same_store_gives_the_same_keys(g):
    _store(g)
    g.keys(now=NOW)
    first = [(k["id"], k["text"]) for k in g.explain("long")["keys"]]
    g.db.run_text("MATCH (k:Key) SET k:OldKey REMOVE k:Key")  # as a fresh store would be (test isolation only)
    g.db.run_text("MATCH (m:Memory) REMOVE m.keys_version")
    g.keys(now=NOW)
    assert [(k["id"], k["text"]) for k in g.explain("long")["keys"]] == first


def test_a_context_excerpt_of_a_long_memory_holds_the_key_that_found_it(g):
    g.add({"id": "long", "content": LONG, "namespace": NS, "subject": "user"}, now=NOW)
    g.add({"id": "swim", "content": OTHERS[2], "namespace": NS, "subject": "user"}, now=NOW)
    g.keys(now=NOW)
    question = "What is my occupation these days?"  # no word in common with the sentence that answers
    hits = g.retrieve(question, k=1, namespace=NS, record=False, mode="vector")
    assert hits[0].memory.id == "long" and "nurse" in hits[0].key
    ctx = g.context(question, 25, namespace=NS, record=False, mode="vector")  # the whole turn does not fit
    line = next(line for line in ctx.lines if line.ids == ["long"])
    assert line.excerpt and "I started a new job as a nurse at the city hospital last Monday" in line.text
