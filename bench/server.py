"""A throwaway Neo4j + GDS for benchmarks, separate from the one holding real data.

It lives in .neo4j-bench (ports 7697/7497) and is reset (its data folder removed by
scripts/neo4j reset) before each benchmark, so a benchmark never touches user data.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from graphcons.core.config import Config, Neo4jConfig

REPO = Path(__file__).resolve().parent.parent


def bench_server(heap: str = "4g", pagecache: str = "2g", reset: bool = True) -> Config:
    env = dict(os.environ,
               GRAPHCONS_NEO4J_HOME=str(REPO / ".neo4j-bench"),
               GRAPHCONS_NEO4J_BOLT_PORT="7697", GRAPHCONS_NEO4J_HTTP_PORT="7497",
               GRAPHCONS_NEO4J_HEAP=heap, GRAPHCONS_NEO4J_PAGECACHE=pagecache)
    script = str(REPO / "scripts" / "neo4j")
    if reset:
        subprocess.run([script, "reset"], env=env, check=True)
    subprocess.run([script, "start"], env=env, check=True)
    password = (REPO / ".neo4j-bench" / "password").read_text().strip()
    return Config(neo4j=Neo4jConfig(uri="bolt://127.0.0.1:7697", password=password))


def stop_bench_server() -> None:
    env = dict(os.environ, GRAPHCONS_NEO4J_HOME=str(REPO / ".neo4j-bench"),
               GRAPHCONS_NEO4J_BOLT_PORT="7697", GRAPHCONS_NEO4J_HTTP_PORT="7497")
    subprocess.run([str(REPO / "scripts" / "neo4j"), "stop"], env=env, check=False)
