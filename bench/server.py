"""A throwaway Neo4j + GDS for benchmarks, separate from the one holding real data.

It lives in .neo4j-bench (ports 7697/7497; $GRAPHCONS_BENCH_HOME, $GRAPHCONS_BENCH_BOLT_PORT and
$GRAPHCONS_BENCH_HTTP_PORT override them) and is reset (its data folder removed by
scripts/neo4j reset) before each benchmark, so a benchmark never touches user data.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from graphcons.core.config import Config, Neo4jConfig

REPO = Path(__file__).resolve().parent.parent
HOME = Path(os.environ.get("GRAPHCONS_BENCH_HOME", REPO / ".neo4j-bench"))
BOLT = os.environ.get("GRAPHCONS_BENCH_BOLT_PORT", "7697")
HTTP = os.environ.get("GRAPHCONS_BENCH_HTTP_PORT", "7497")


def bench_server(heap: str = "4g", pagecache: str = "2g", reset: bool = True, merge_factor: str | None = None,
                 population_mb: str | None = None, max_merge_mb: str | None = None) -> Config:
    """`merge_factor`: the vector index's Lucene merge factor ("neo4j": Neo4j's default, 50 in 5.26; None:
    scripts/neo4j's); `population_mb`: its population RAM buffer in MB ("neo4j": Neo4j's 1 MB; None:
    scripts/neo4j's); `max_merge_mb`: the largest Lucene segment merged ("neo4j": 2048). A server running with
    other settings is restarted."""
    env = dict(os.environ,
               GRAPHCONS_NEO4J_HOME=str(HOME),
               GRAPHCONS_NEO4J_BOLT_PORT=BOLT, GRAPHCONS_NEO4J_HTTP_PORT=HTTP,
               GRAPHCONS_NEO4J_HEAP=heap, GRAPHCONS_NEO4J_PAGECACHE=pagecache)
    if merge_factor is not None:
        env["GRAPHCONS_NEO4J_VECTOR_MERGE_FACTOR"] = merge_factor
    if population_mb is not None:
        env["GRAPHCONS_NEO4J_VECTOR_POPULATION_BUFFER_MB"] = population_mb
    if max_merge_mb is not None:
        env["GRAPHCONS_NEO4J_INDEX_MAX_MERGE_MB"] = max_merge_mb
    script = str(REPO / "scripts" / "neo4j")
    if merge_factor is not None or population_mb is not None or max_merge_mb is not None:  # read at start: stop first
        subprocess.run([script, "stop"], env=env, check=False)
    if reset:
        subprocess.run([script, "reset"], env=env, check=True)
    subprocess.run([script, "start"], env=env, check=True)
    password = (HOME / "password").read_text().strip()
    return Config(neo4j=Neo4jConfig(uri=f"bolt://127.0.0.1:{BOLT}", password=password))


def stop_bench_server() -> None:
    env = dict(os.environ, GRAPHCONS_NEO4J_HOME=str(HOME),
               GRAPHCONS_NEO4J_BOLT_PORT=BOLT, GRAPHCONS_NEO4J_HTTP_PORT=HTTP)
    subprocess.run([str(REPO / "scripts" / "neo4j"), "stop"], env=env, check=False)


def consolidating_config(uri: str | None, *, pagecache: str = "512m", daily_cap: int = 10_000) -> Config:
    """The Config of a bench that consolidates: the Neo4j at `uri` (which the bench wipes) or the
    throwaway bench server; consolidation on and not a dry run, with a daily cap above any run's
    accepted clusters (every cluster the gate accepts is synthesized, not the first 20)."""
    cfg = Config(neo4j=Neo4jConfig(uri=uri, password=os.environ.get("NEO4J_PASSWORD") or None)) if uri \
        else bench_server(heap="1g", pagecache=pagecache)
    cfg.consolidation.enabled = True
    cfg.consolidation.dry_run = False
    cfg.consolidation.daily_cap = daily_cap
    return cfg
