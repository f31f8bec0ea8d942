"""`graphcons scenario incident-consolidation` and `graphcons clusters` as a user runs them."""

from __future__ import annotations

import json

import pytest
from conftest import graphcons_cli

from graphcons.scenarios import NAMESPACE


@pytest.fixture
def cli(g, neo4j_settings, tmp_path):
    return graphcons_cli(neo4j_settings, tmp_path, COLUMNS="200")


def _members(decision):
    return set(decision["member_ids"])


def test_incident_scenario_finds_the_503_pattern_and_the_cold_pool_exhaustions(cli, g):
    out = cli("scenario", "incident-consolidation", "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["seeded"] == 19 and report["namespace"] == NAMESPACE
    accepted = [d for d in report["decisions"] if d["accepted"]]
    by_subject = {d["subject"]: d for d in accepted}

    checkout = by_subject["checkout-service"]
    assert _members(checkout) == {f"inc-checkout-{i}" for i in range(1, 6)}
    assert checkout["trigger"] == "salient" and checkout["figures"]["coaccess_mass"] >= 2.0
    paydb = by_subject["payments-db"]
    assert _members(paydb) == {f"inc-paydb-{i}" for i in range(1, 5)}
    assert paydb["trigger"] == "dense_but_cold"
    # Search 503s share a root-cause link with checkout but never reach accepted with it.
    assert all(not any(m.startswith("inc-search") for m in d["member_ids"]) for d in accepted)
    assert all(not any(m.startswith("note-") for m in d["member_ids"]) for d in accepted)  # noise stays out
    assert report["consolidation_due"] == 2 and report["dry_run"] is False  # a recorded scan, not a dry run
    assert any("scope" in d["rejected_by"] for d in report["decisions"])

    again = json.loads(cli("scenario", "incident-consolidation", "--json").stdout)
    assert again["seeded"] == 0
    assert [d["key"] for d in again["decisions"]] == [d["key"] for d in report["decisions"]]
    assert g.db.run_text("MATCH (r:ConsolidationRun) RETURN count(r) AS n")[0]["n"] == 2


def test_clusters_command_table_and_json(cli, g):
    assert cli("scenario", "incident-consolidation", "--json").returncode == 0
    table = cli("clusters", "--namespace", NAMESPACE)
    assert table.returncode == 0, table.stderr
    assert "accepted" in table.stdout and "consolidation_due 2" in table.stdout
    assert "Payments database connection pool" in table.stdout
    data = json.loads(cli("clusters", "--json", "--algorithm", "leiden", "--accepted").stdout)
    assert data["algorithm"] == "leiden" and all(d["accepted"] for d in data["decisions"])
    bad = cli("clusters", "--algorithm", "louvain")
    assert bad.returncode == 2 and "consolidation.algorithm" in bad.stderr


def test_scenario_warns_when_every_memory_is_a_singleton(cli, g, tmp_path):
    (tmp_path / "graphcons.toml").write_text(
        "[consolidation]\nsim_floor = 0.999\nlink_weight = 0.0\ncoaccess_weight = 0.0\n")
    out = cli("scenario", "incident-consolidation", "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["decisions"] == [] and any("singleton" in w for w in report["warnings"])
