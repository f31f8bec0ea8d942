"""A new user's first hour (issue 32, item 5): each rough edge they hit, checked where they saw it."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from service_helpers import Server
from synthesis_helpers import INCIDENTS, NOW, add_incidents

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def cli(g, neo4j_settings, tmp_path):
    env = dict(os.environ, NEO4J_URI=neo4j_settings.uri, NEO4J_USER=neo4j_settings.user,
               NEO4J_PASSWORD=neo4j_settings.resolved_password(), COLUMNS="200")
    env.pop("GRAPHCONS_CONFIG", None)

    def run(*args, cwd=tmp_path, toml=None):
        if toml is not None:
            (tmp_path / "graphcons.toml").write_text(toml)
        return subprocess.run([sys.executable, "-m", "graphcons", *args], capture_output=True, text=True, env=env,
                              cwd=cwd, timeout=300)

    return run


def _incidents(prefix: str) -> list[tuple[str, str, str, str]]:
    return [(f"{prefix}-{mid}", text, source, day) for mid, text, source, day in INCIDENTS]


def test_import_of_a_missing_file_names_the_example(cli, g):
    out = cli("import", "memories.jsonl", cwd=REPO)  # the README's old line, run from the repository
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "no such file: memories.jsonl; did you mean examples/memories.jsonl?" in " ".join(out.stderr.split())
    assert g.stats()["memories"] == 0


def test_proposals_list_filters_by_namespace_before_the_limit(cli, g):
    first = g.synthesize(add_incidents(g, _incidents("a"), namespace="team-a"), now=NOW).proposal_id
    second = g.synthesize(add_incidents(g, _incidents("b"), namespace="team-b"), now=NOW).proposal_id
    # with --limit 1, team-b's proposal (the newer) was cut off before: the filter now runs first
    listed = json.loads(cli("proposals", "list", "--namespace", "team-b", "--limit", "1", "--json").stdout)
    assert [p["id"] for p in listed] == [second]
    plain = cli("proposals", "list", "--limit", "1")
    assert first in plain.stdout and "there may be more" in plain.stdout


def test_api_accepts_status_all_and_a_namespace(g, neo4j_settings, embedder, config):
    pid = g.synthesize(add_incidents(g, _incidents("a"), namespace="team-a"), now=NOW).proposal_id
    g.reject(pid, "not useful", now=NOW)
    other = g.synthesize(add_incidents(g, _incidents("b"), namespace="team-b"), now=NOW).proposal_id
    token, _ = g.create_token("ana", ["team-a"], "reviewer")
    admin, _ = g.create_token("ops", ["*"], "admin")
    with Server(config, embedder) as srv:
        every = srv.client(token).get("/v1/proposals", params={"status": "all"})
        assert every.status_code == 200, every.text
        assert [p["id"] for p in every.json()] == [pid]  # rejected, and only the token's namespace
        assert srv.client(token).get("/v1/proposals", params={"status": "pending"}).json() == []
        # a namespace the token does not hold is 403, as on every route (issue 41), never another's proposals
        foreign = srv.client(token).get("/v1/proposals", params={"namespace": "team-b"})
        assert foreign.status_code == 403 and foreign.json()["field"] == "namespace"
        mine = srv.client(admin).get("/v1/proposals", params={"namespace": "team-b", "status": "all"}).json()
        assert [p["id"] for p in mine] == [other]
        bad = srv.client(token).get("/v1/proposals", params={"status": "everything"})
        assert bad.status_code == 422


def test_consolidation_disabled_says_how_to_enable_it(cli, g):
    out = cli("consolidate")
    text = " ".join(out.stdout.split())
    assert out.returncode == 0
    assert "[consolidation] enabled = false" in text and "graphcons.toml" in text
    assert "GRAPHCONS__CONSOLIDATION__ENABLED=true" in text and "GRAPHCONS__CONSOLIDATION__DRY_RUN=false" in text


def test_brackets_in_an_error_are_printed_as_written(cli, g):
    a = cli("add", "Checkout returned 503", "--json")
    b = cli("add", "Deploy 4.2 went out", "--json")
    out = cli("link", json.loads(a.stdout)["id"], json.loads(b.stdout)["id"], "--kind", "Same Root")
    assert out.returncode == 2
    assert "^[a-z][a-z0-9_]*$" in out.stderr  # was printed as '^*$': Rich ate the brackets


def test_viz_into_a_missing_folder_is_a_clear_error(cli, g, tmp_path):
    add_incidents(g)
    out = cli("viz", "subject", "checkout", "--out", str(tmp_path / "missing" / "x.html"))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "does not exist" in out.stderr and str(tmp_path / "missing") in " ".join(out.stderr.split())
    assert not (tmp_path / "missing").exists()


def test_serve_help_names_the_setting(cli, g):
    out = cli("serve", "--help")
    assert "(default [service] host, 127.0.0.1)" in " ".join(out.stdout.split())


def test_hybrid_search_says_what_its_score_is(cli, g):
    add_incidents(g)
    out = cli("search", INCIDENTS[0][1])
    text = " ".join(out.stdout.split())
    assert out.returncode == 0 and "rank score" in text and "cosine" in text and "not a similarity" in text
    row = next(line for line in out.stdout.splitlines() if "inc-1" in line)
    assert "1.000" in row  # the exact match's cosine, beside its small fusion score
    vector = cli("search", INCIDENTS[0][1], "--mode", "vector")
    assert "cosine" in vector.stdout and "rank score" not in vector.stdout


def test_a_manual_run_at_a_given_time_does_not_move_the_schedule(cli, g):
    later = "2031-01-01T00:00:00+00:00"
    run = cli("jobs", "run", "promote", "--now", later, "--json")
    assert run.returncode == 0, run.stderr
    rows = {r["job"]: r for r in json.loads(cli("jobs", "list", "--now", NOW.isoformat(), "--json").stdout)}
    promote = rows["promote"]
    assert promote["last_run"]["trigger"] == "manual --now"  # recorded and shown ...
    assert promote["due"] is True and promote["reason"] == "never ran"  # ... but the schedule ignores it
    assert "manual --now: not counted by the schedule" in cli("jobs", "list", "--now", NOW.isoformat()).stdout
    health = json.loads(cli("health", "--json", "--now", NOW.isoformat()).stdout)
    assert health["jobs"]["promote"]["last_ok"] is None and health["last_runs"]["promote"] is None
    # a run at the clock's time (no --now) still counts, as a worker's would
    assert cli("jobs", "run", "promote").returncode == 0
    rows = {r["job"]: r for r in json.loads(cli("jobs", "list", "--json").stdout)}
    assert rows["promote"]["due"] is False
