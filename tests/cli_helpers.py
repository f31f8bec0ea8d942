"""The CLI as a subprocess, as a script runs it, on this checkout's graphcons (PYTHONPATH: whatever the
venv's editable install points at) and the test's Neo4j."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def cli_runner(neo4j_settings, cwd: Path):
    env = dict(os.environ, NEO4J_URI=neo4j_settings.uri, NEO4J_USER=neo4j_settings.user,
               NEO4J_PASSWORD=neo4j_settings.resolved_password(), COLUMNS="200", PYTHONPATH=str(REPO))
    env.pop("GRAPHCONS_CONFIG", None)

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "graphcons", *args], capture_output=True, text=True,
                              env=env, cwd=cwd, timeout=120)

    return run
