"""Clusters on real-shaped stores (issue 12): an oversized community is split into parts that
are gated on their own; a dense group stays one cluster with both algorithms; the demo's
503 incidents and TypeScript preferences each form one cluster at the embedder's floor."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clusters_helpers import DISTINCT, add_all, cluster_of, link_clique
from graphcons.consolidation.cluster import Cluster
from graphcons.core.config import load_config

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _two_groups(g):
    ids = add_all(g, DISTINCT[:12], subject="ops")
    left, right = ids[:6], ids[6:]
    link_clique(g, left)
    link_clique(g, right)
    g.link(left[0], right[0], "related")  # two bridges: one community of 12 to a coarse eye
    g.link(left[1], right[1], "related")
    return ids, left, right


def test_an_oversized_cluster_is_split_and_each_part_gated_with_its_parent(g):
    ids, left, right = _two_groups(g)
    g.config.consolidation.max_size = 8
    whole = Cluster(tuple(ids), "default")

    decisions = g.gate([whole])

    parent = next(d for d in decisions if d.key == whole.key)
    assert not parent.accepted and parent.rejected_by == ["size"]
    assert "split into 2 parts" in parent.reasons[0] and parent.figures["parts"] == 2
    parts = [d for d in decisions if d.split_from == whole.key]
    assert sorted(set(d.cluster.member_ids) == set(left) or set(d.cluster.member_ids) == set(right)
                  for d in parts) == [True, True]
    assert all(d.accepted and d.figures["cohesion"] == 1.0 for d in parts)
    again = g.gate([whole])
    assert [(d.key, d.accepted, d.split_from) for d in again] == [(d.key, d.accepted, d.split_from) for d in decisions]


def test_an_unsplittable_cluster_is_rejected_with_that_reason(g):
    ids = add_all(g, DISTINCT[:6], subject="ops")
    link_clique(g, ids)  # a clique: no resolution splits it
    g.config.consolidation.max_size = 4

    [d] = g.gate([Cluster(tuple(ids), "default")])

    assert not d.accepted and d.rejected_by == ["size"] and "cannot be split further" in d.reasons[0]


@pytest.mark.parametrize("algorithm", ["label_propagation", "leiden"])
def test_a_dense_group_with_weak_outside_links_is_one_cluster(g, algorithm):
    ids = add_all(g, DISTINCT[:12], subject="ops")
    group, outside = ids[:6], ids[6:]
    link_clique(g, group)
    link_clique(g, outside[:3])
    link_clique(g, outside[3:])
    g.config.consolidation.link_kind_weights = {"mentions": 0.2}
    for a, b in zip(group[:3], outside[::2]):  # weak links from the group to both other groups
        g.link(a, b, "mentions")

    clusters = g.clusters(algorithm=algorithm)

    found = cluster_of(clusters, group[0])
    assert found is not None and set(found.member_ids) == set(group)


@pytest.mark.parametrize("algorithm", ["label_propagation", "leiden"])
def test_demo_incidents_and_typescript_preferences_each_form_one_cluster(g, algorithm):
    for line in (EXAMPLES / "memories.jsonl").read_text().splitlines():
        g.add(json.loads(line))
    for session, ids in json.loads((EXAMPLES / "sessions.json").read_text()).items():
        g.access(session, ids)

    clusters = g.clusters(algorithm=algorithm)

    incidents = cluster_of(clusters, "inc-101")
    assert incidents is not None and set(incidents.member_ids) == {
        "inc-101", "inc-102", "inc-103", "inc-104", "inc-105", "pm-104"}
    typescript = cluster_of(clusters, "pref-1")
    assert typescript is not None and set(typescript.member_ids) == {"pref-1", "pref-2", "pref-3"}
    accepted = {d.key for d in g.gate(clusters) if d.accepted}
    assert incidents.key in accepted


def test_the_floor_comes_from_the_embedder_unless_configured(tmp_path):
    cfg = load_config(env={})
    assert cfg.consolidation.sim_floor is None and cfg.similarity_floor == 0.65
    assert cfg.consolidation.similarity_floor == 0.65
    assert "STS-B" in cfg.public_dict()["consolidation"]["similarity_floor_source"]
    path = tmp_path / "graphcons.toml"
    path.write_text("[consolidation]\nsim_floor = 0.7\n")
    cfg = load_config(path, env={})
    assert cfg.similarity_floor == 0.7 and cfg.consolidation.similarity_floor == 0.7
    assert cfg.public_dict()["consolidation"]["similarity_floor_source"] == "consolidation.sim_floor"
    other = load_config(env={"GRAPHCONS__EMBEDDING__PROVIDER": "openai", "GRAPHCONS__EMBEDDING__MODEL": "x-embed"})
    assert "uncalibrated" in other.public_dict()["consolidation"]["similarity_floor_source"]
