"""A new user's first commands on a database where `graphcons init` never ran, and on an
empty store: each either initialises the schema itself (init is idempotent) or says what to
do, with the documented exit code; none prints a traceback."""

import json
import os
import subprocess
import sys

import pytest

from graphcons.api import Graphcons


def _drop_schema(g: Graphcons) -> None:
    # Test set-up only: make the database look like one graphcons has never seen.
    for row in g.db.run_text("SHOW CONSTRAINTS YIELD name RETURN name"):
        g.db.run_text(f"DROP CONSTRAINT `{row['name']}`")
    for row in g.db.run_text("SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name"):
        g.db.run_text(f"DROP INDEX `{row['name']}`")


@pytest.fixture
def fresh(g, neo4j_settings, tmp_path):
    g.db.run_text("MATCH (n) DETACH DELETE n")
    _drop_schema(g)
    env = dict(os.environ, NEO4J_URI=neo4j_settings.uri, NEO4J_USER=neo4j_settings.user,
               NEO4J_PASSWORD=neo4j_settings.resolved_password(), COLUMNS="200")
    env.pop("GRAPHCONS_CONFIG", None)

    def run(*args):
        return subprocess.run([sys.executable, "-m", "graphcons", *args], capture_output=True, text=True, env=env,
                              cwd=tmp_path, timeout=300)

    yield run
    g.init()  # leave the schema as every other test expects it


def test_first_commands_on_an_uninitialised_database_work(fresh):
    added = fresh("add", "Checkout returned 503 after deploy 4.2", "--subject", "checkout", "--json")
    assert added.returncode == 0, added.stderr
    assert "Traceback" not in added.stderr
    found = fresh("search", "503 after deploy", "--json")
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)[0]["id"] == json.loads(added.stdout)["id"]


def test_search_and_scenario_on_an_uninitialised_database_work(fresh):
    assert fresh("search", "anything", "--json").returncode == 0
    out = fresh("scenario", "incident-consolidation", "--json")
    assert out.returncode == 0, out.stderr[-2000:]


def test_clusters_on_an_empty_store_reports_nothing_to_cluster(fresh):
    out = fresh("clusters", "--json")
    assert out.returncode == 0, out.stderr[-2000:]
    report = json.loads(out.stdout)
    assert report["nodes"] == 0 and report["clusters"] == 0 and report["accepted"] == 0
    text = fresh("clusters")
    assert text.returncode == 0 and "Traceback" not in text.stderr
