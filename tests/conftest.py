"""A real Neo4j with GDS for every storage test; no mock of Neo4j anywhere.

Server choice, in order: $NEO4J_URI (with $NEO4J_USER / $NEO4J_PASSWORD) when set; else a
Docker engine through testcontainers when one answers; else scripts/neo4j start (a local
Neo4j + GDS assembled from Maven Central). Each test starts from an empty database.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from graphcons.api import Graphcons
from graphcons.core.config import Config, Neo4jConfig
from graphcons.core.embedders.minilm import MiniLMEmbedder

REPO = Path(__file__).resolve().parent.parent


def _docker_answers() -> bool:
    if not shutil.which("docker"):
        return False
    try:
        return subprocess.run(["docker", "info"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.fixture(scope="session")
def neo4j_settings():
    if os.environ.get("NEO4J_URI"):
        yield Neo4jConfig(uri=os.environ["NEO4J_URI"], user=os.environ.get("NEO4J_USER", "neo4j"),
                          password=os.environ.get("NEO4J_PASSWORD") or None)
        return
    if _docker_answers():
        try:
            from testcontainers.neo4j import Neo4jContainer
        except ImportError:
            Neo4jContainer = None
        if Neo4jContainer is not None:
            container = (Neo4jContainer("neo4j:5.26-community", password="graphcons-test")
                         .with_env("NEO4J_PLUGINS", '["graph-data-science"]')
                         .with_env("NEO4J_dbms_security_procedures_unrestricted", "gds.*"))
            with container:
                yield Neo4jConfig(uri=container.get_connection_url(), user="neo4j", password="graphcons-test")
            return
    subprocess.run([str(REPO / "scripts" / "neo4j"), "start"], check=True)
    port = os.environ.get("GRAPHCONS_NEO4J_BOLT_PORT", "7687")
    yield Neo4jConfig(uri=f"bolt://127.0.0.1:{port}")  # password: the file scripts/neo4j generated


@pytest.fixture(scope="session")
def embedder():
    return MiniLMEmbedder()


def _wipe(g: Graphcons) -> None:
    # Test isolation only: graphcons itself never deletes (see the product's principles).
    g.db.run_text("CALL gds.graph.list() YIELD graphName CALL gds.graph.drop(graphName, false) YIELD graphName AS g RETURN count(*)")
    with g.db.driver.session(database=g.config.neo4j.database, bookmark_manager=g.db.bookmarks) as session:
        session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS").consume()


@pytest.fixture
def config(neo4j_settings) -> Config:
    return Config(neo4j=neo4j_settings)


@pytest.fixture
def g(config, embedder):
    """A Graphcons on an empty, initialised database."""
    with Graphcons(config, embedder=embedder) as gc:
        _wipe(gc)
        gc.init()
        yield gc


def graphcons_cli(neo4j_settings, cwd, *, timeout: float = 300, **extra_env: str):
    """`python -m graphcons ARGS` against the test server, without the caller's graphcons.toml: the one
    CLI runner the CLI tests share (extra_env: e.g. COLUMNS, GRAPHCONS__SECTION__KEY). PYTHONPATH puts this
    checkout's graphcons first: the subprocess runs from `cwd`, where an editable install elsewhere (a git
    worktree sharing a venv) would be imported instead."""
    import sys

    env = dict(os.environ, NEO4J_URI=neo4j_settings.uri, NEO4J_USER=neo4j_settings.user,
               NEO4J_PASSWORD=neo4j_settings.resolved_password() or "",
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])), **extra_env)
    env.pop("GRAPHCONS_CONFIG", None)

    def run(*args):
        return subprocess.run([sys.executable, "-m", "graphcons", *args], capture_output=True, text=True, env=env,
                              cwd=cwd, timeout=timeout)

    run.env = env  # for a test that starts a long-running command itself (graphcons serve)
    return run


@pytest.fixture
def cli_run(g, neo4j_settings, tmp_path):
    """`graphcons ARGS...` as a user runs it, on the test store, from an empty directory."""
    env = dict(os.environ, NEO4J_URI=neo4j_settings.uri, NEO4J_USER=neo4j_settings.user,
               NEO4J_PASSWORD=neo4j_settings.resolved_password())
    env.pop("GRAPHCONS_CONFIG", None)
    return lambda *args: subprocess.run([sys.executable, "-m", "graphcons", *args], capture_output=True, text=True,
                                        env=env, cwd=tmp_path, timeout=120)
