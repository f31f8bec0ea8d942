"""The contrast split (issue 12): two groups of members that differ in one slot ("session
opened / closed for user X") are two clusters, however close the embedder puts them; a
topical cluster, identifiers, dates and function words never make a contrast."""

from __future__ import annotations

from clusters_helpers import add_all, link_clique
from graphcons.consolidation.cluster import Cluster
from graphcons.consolidation.contrast import find

USERS = ("root", "cyrus", "news", "test")
SESSIONS = {**{f"o-{u}": f"session opened for user {u} by (uid=0)" for u in USERS},
            **{f"c-{u}": f"session closed for user {u}" for u in USERS}}


def test_two_groups_differing_in_one_slot_are_split_along_it():
    found = find(SESSIONS, min_size=3)
    assert found is not None and set(found.words) == {"opened", "closed"}
    assert {frozenset(s) for s in found.sides} == {frozenset(k for k in SESSIONS if k.startswith(p))
                                                  for p in ("o-", "c-")}
    assert find(dict(reversed(list(SESSIONS.items()))), min_size=3) == found  # input order does not matter


def test_no_split_when_a_side_would_be_smaller_than_min_size():
    assert find(SESSIONS, min_size=5) is None
    three_and_one = {k: v for k, v in SESSIONS.items() if k != "c-root" and k != "c-news" and k != "c-test"}
    assert find(three_and_one, min_size=3) is None


def test_identifiers_dates_and_function_words_are_no_contrast():
    ids = {f"a{i}": f"Launching attempt_{i:04d} on host-{i}" for i in range(3)} | \
          {f"b{i}": f"Launching attempt_{i + 7:04d} on host-{i + 7}" for i in range(3)}
    assert find(ids, min_size=3) is None  # the parts differ only in tokens with digits
    dates = {f"j{i}": f"connection from 10.0.0.{i} at Sun Jul 24 02:38:{i:02d} 2005" for i in range(3)} | \
            {f"k{i}": f"connection from 10.0.1.{i} at Sun Jun 24 02:38:{i:02d} 2005" for i in range(3)}
    assert find(dates, min_size=3) is None
    style = {"t1": "Thank you for the advice on sleep.", "t2": "Thank you for the tips on my garden.",
             "t3": "Thank you for the recipe ideas.", "d1": "Do you have more advice on sleep?",
             "d2": "Do you have tips for a small garden?", "d3": "Do you know a quick recipe?"}
    assert find(style, min_size=3) is None  # "Thank you" / "Do you": function words, no seam


def test_words_apart_but_not_in_one_slot_are_no_contrast():
    topical = {"e1": "I love watching eagles near the lake.", "e2": "Eagles nest on the cliffs by our town.",
               "e3": "I saw two eagles this morning.", "b1": "Birdwatching with Sam is my favourite weekend plan.",
               "b2": "I bought binoculars for birdwatching.", "b3": "Birdwatching season starts in spring here."}
    assert find(topical, min_size=3) is None  # eagles / birdwatching share no frame


def test_the_gate_splits_a_contrasted_cluster_and_gates_each_side(g):
    g.config.consolidation.contrast_split = True  # opt-in
    ids = add_all(g, list(SESSIONS.values()), subject="auth")
    link_clique(g, ids)
    whole = Cluster(tuple(ids), "default")

    decisions = g.gate([whole])

    parent = decisions[0]
    assert parent.key == whole.key and not parent.accepted and parent.rejected_by == ["contrast"]
    assert "'opened'" in parent.reasons[0] and "'closed'" in parent.reasons[0]
    parts = [d for d in decisions if d.split_from == whole.key]
    texts = {m: t for m, t in zip(ids, SESSIONS.values())}
    assert sorted({texts[m].split()[1] for m in d.cluster.member_ids} == {"opened"} or
                  {texts[m].split()[1] for m in d.cluster.member_ids} == {"closed"} for d in parts) == [True, True]
    assert all(d.accepted for d in parts)
    assert [(d.key, d.accepted) for d in g.gate([whole])] == [(d.key, d.accepted) for d in decisions]
    g.config.consolidation.contrast_split = False
    [kept] = g.gate([whole])
    assert kept.accepted and kept.key == whole.key
