"""The community prior (issue 39): every scan stores each memory's community as derived data,
one namespace's at a time, and retrieval's `community_weight` lifts a candidate by its
community's other candidates. The prior never reads another namespace."""

from __future__ import annotations

import pytest

PAYMENTS = ["The payments deploy failed with a 503 from the gateway.",
            "The payments gateway answered 503 during the release.",
            "We rolled the payments release back at 14:00."]
OTHER = ["The search release went out on Tuesday.", "The office plants are watered on Fridays."]
QUERY = "payments gateway 503"


def _clique(g, ids):
    for i, x in enumerate(ids):
        for y in ids[i + 1:]:
            g.link(x, y, "related")


def _add(g, namespace, texts, prefix):
    return [g.add({"id": f"{prefix}-{namespace}-{i}", "content": t, "namespace": namespace, "subject": "ops"}).id
            for i, t in enumerate(texts)]


def _communities(g):
    rows = g.db.run_text("MATCH (m:Memory) WHERE m.community IS NOT NULL "
                         "RETURN m.id AS id, m.namespace AS ns, m.community AS c, m.community_size AS n ORDER BY id")
    return {r["id"]: (r["ns"], r["c"], r["n"]) for r in rows}


def _scores(g, namespace="a"):
    hits = g.retrieve(QUERY, k=10, namespace=namespace, mode="hybrid", insights="plain", record=False)
    return {h.memory.id: h.score for h in hits}


def _plain_ranking(g, weight):
    rc = g.config.retrieval
    rc.graph_weight, rc.diversity, rc.community_weight = 0.0, 0.0, weight


def test_a_scan_stores_each_memorys_community_and_a_community_never_spans_two_namespaces(g):
    a = _add(g, "a", PAYMENTS, "p")
    b = _add(g, "b", PAYMENTS, "p")
    _clique(g, a)
    _clique(g, b)
    # an edge across namespaces (an older store or an import can hold one) joins the raw cluster
    g.db.run_text("MATCH (x:Memory {id: $x}), (y:Memory {id: $y}) CREATE (x)-[:LINKED {kind: 'related'}]->(y)",
                  x=a[0], y=b[0])
    lone = _add(g, "a", OTHER[:1], "o")[0]
    g.db.run_text("MATCH (m:Memory {id: $id}) SET m.community = 'stale@a', m.community_size = 4, m.community_run = 'x'",
                  id=lone)

    g.scan()

    stored = _communities(g)
    assert set(stored) == set(a) | set(b)  # every clustered memory, and the stale one is cleared
    for ns, ids in (("a", a), ("b", b)):
        (community,) = {stored[i][1] for i in ids}
        assert community.endswith("@" + ns) and {stored[i][2] for i in ids} == {3}
    assert stored[a[0]][1] != stored[b[0]][1]


def test_the_prior_lifts_a_memory_by_its_siblings_and_nothing_else(g):
    a = _add(g, "a", PAYMENTS, "p")
    others = _add(g, "a", OTHER, "o")
    _clique(g, a)
    g.scan()
    _plain_ranking(g, 0.0)
    before = _scores(g)
    _plain_ranking(g, 0.5)
    after = _scores(g)

    assert set(before) == set(after) == set(a) | set(others)
    for mid in others:  # in no community: unchanged
        assert after[mid] == before[mid]
    for mid in a:  # the mean score of its two siblings, half weighted
        siblings = [before[s] for s in a if s != mid]
        assert after[mid] == pytest.approx(before[mid] + 0.5 * sum(siblings) / 2, abs=1e-6)
    # the sibling the query matches least gains the most relative to its own score
    weakest = min(a, key=before.get)
    assert after[weakest] / before[weakest] == max(after[m] / before[m] for m in a)


def test_another_namespace_joining_the_cluster_changes_nothing_in_this_one(g):
    a = _add(g, "a", PAYMENTS, "p")
    _add(g, "a", OTHER, "o")
    _clique(g, a)
    g.scan()
    alone = {i: c for i, c in _communities(g).items() if i in a}

    b = _add(g, "b", PAYMENTS + OTHER, "p")
    _clique(g, b)
    g.db.run_text("MATCH (x:Memory {id: $x}), (y:Memory) WHERE y.id IN $ys "
                  "CREATE (x)-[:LINKED {kind: 'related'}]->(y)", x=a[0], ys=b)
    g.scan()

    assert {i: c for i, c in _communities(g).items() if i in a} == alone  # same community, same size
    # (the keyword list's BM25 reads the whole index, so base scores move; the prior's lift does not read b)
    _plain_ranking(g, 0.0)
    base = _scores(g)
    _plain_ranking(g, 0.5)
    lifted = _scores(g)
    assert set(lifted) <= {*a, *(i for i in base if i.startswith("o-"))}
    for mid in a:
        siblings = [base[s] for s in a if s != mid]
        assert lifted[mid] == pytest.approx(base[mid] + 0.5 * sum(siblings) / 2, abs=1e-6)
