"""The review queue from the command line, as an operator uses it (exit codes, --json)."""

import json
import os
import subprocess
import sys

import pytest
from synthesis_helpers import NOW, add_incidents


@pytest.fixture
def cli(g, neo4j_settings, tmp_path):
    env = dict(os.environ, NEO4J_URI=neo4j_settings.uri, NEO4J_USER=neo4j_settings.user,
               NEO4J_PASSWORD=neo4j_settings.resolved_password(), COLUMNS="200")
    env.pop("GRAPHCONS_CONFIG", None)

    def run(*args, toml=None):
        if toml is not None:
            (tmp_path / "graphcons.toml").write_text(toml)
        return subprocess.run([sys.executable, "-m", "graphcons", *args], capture_output=True, text=True, env=env,
                              cwd=tmp_path, timeout=300)

    return run


def test_list_show_approve_twice_revert(cli, g):
    pid = g.synthesize(add_incidents(g), now=NOW).proposal_id
    listed = json.loads(cli("proposals", "list", "--json").stdout)
    assert [p["id"] for p in listed] == [pid]
    shown = cli("proposals", "show", pid)
    assert shown.returncode == 0 and "503 after deploy" in shown.stdout and "confirmed" in shown.stdout
    first = cli("proposals", "approve", pid, "--json")
    assert first.returncode == 0, first.stderr
    res = json.loads(first.stdout)
    assert res["changed"] is True and res["summarizes"] == 4
    second = cli("proposals", "approve", pid)
    assert second.returncode == 0 and "nothing changed" in second.stdout
    reverted = cli("proposals", "revert", pid, "--reason", "wrong")
    assert reverted.returncode == 0 and "deprecated" in reverted.stdout
    assert cli("proposals", "approve", pid).returncode == 8  # conflict: not pending any more
    assert cli("proposals", "show", "p-missing").returncode == 3


def test_reject_needs_a_reason_and_keeps_it(cli, g):
    pid = g.synthesize(add_incidents(g), now=NOW).proposal_id
    assert cli("proposals", "reject", pid).returncode == 2  # --reason is required
    assert cli("proposals", "reject", pid, "--reason", "duplicate of a runbook").returncode == 0
    assert json.loads(cli("proposals", "show", pid, "--json").stdout)["reason"] == "duplicate of a runbook"


def test_stale_approval_exits_with_conflict_and_names_resynthesize(cli, g):
    pid = g.synthesize(add_incidents(g), now=NOW).proposal_id
    g.edit("inc-1", content="Checkout returned 503 after deploy 4.1; rolled back after 13 minutes.")
    out = cli("proposals", "approve", pid)
    assert out.returncode == 8 and f"proposals resynthesize {pid}" in " ".join(out.stderr.split())
    again = json.loads(cli("proposals", "resynthesize", pid, "--json").stdout)
    assert again["status"] == "proposed" and again["proposal_id"] != pid


def test_consolidate_respects_enabled_and_dry_run(cli, g):
    add_incidents(g)
    off = cli("consolidate")
    assert off.returncode == 0 and "disabled" in off.stdout
    dry = cli("consolidate", "--json", toml="[consolidation]\nenabled = true\n")
    assert dry.returncode == 0 and json.loads(dry.stdout)["dry_run"] is True
    assert json.loads(cli("proposals", "list", "--json").stdout) == []


def test_benchmark_prints_n_of_n(cli, g):
    out = cli("benchmark")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "22/22 passed" in out.stdout and "dangling provenance raises" in out.stdout
    assert "counted toward [consolidation] daily_cap" in out.stdout
    assert "a self-derived exception is refused" in out.stdout


def test_help_describes_the_tool(cli, g):
    out = cli("--help")
    assert out.returncode == 0 and "consolidates an AI agent's episodic memories" in " ".join(out.stdout.split())


def test_consolidate_synthesizes_within_the_daily_cap(cli, g):
    from graphcons.scenarios import NAMESPACE, seed_incidents

    seed_incidents(g)
    toml = "[consolidation]\nenabled = true\ndry_run = false\ndaily_cap = 1\n"
    out = cli("consolidate", "--namespace", NAMESPACE, toml=toml)
    assert out.returncode == 0, out.stderr
    assert "1 proposed" in out.stdout and "1 pending" in out.stdout and "1/1 syntheses today" in out.stdout
    listed = json.loads(cli("proposals", "list", "--json").stdout)
    assert len(listed) == 1 and listed[0]["status"] == "pending"


def test_the_queue_shows_merge_proposals_too(cli, g):
    pid = g.synthesize(add_incidents(g), now=NOW).proposal_id
    g.db.run_text("CREATE (:Proposal {id: 'p-merge-1', kind: 'merge', status: 'pending', created_at: $now, "
                  "memory_ids: ['inc-1', 'inc-2'], payload: '{}'})", now=NOW)
    table = cli("proposals", "list")
    assert table.returncode == 0 and pid in table.stdout and "p-merge-1" in table.stdout and "merge" in table.stdout
    shown = cli("proposals", "show", "p-merge-1")
    assert shown.returncode == 0 and "memory_ids" in shown.stdout
