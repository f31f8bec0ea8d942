"""Vector index health (issue 15): the latency of a fixed probe query, the index's state,
and a rebuild.

Neo4j 5 community does not show the index's segment count through Cypher, so health is
measured the way a user feels it: the median time of one fixed nearest-neighbour query
(k = 100, a constant unit vector), next to the state and population SHOW INDEXES reports.
Many small write transactions leave the index in many segments and slow every query (issue
15 measured ~50 ms against ~5 ms after a rebuild); `rebuild` drops the index and creates it
again from the stored embeddings. Dropping an index is schema, not data: no memory and no
embedding is touched. Neo4j 5 allows one vector index per label and property, so there is no
second index to switch to: until the new one is ONLINE its readers (retrieval's vector leg,
SIMILAR choice in scopes over admission.exact_scope_max) scan their scope exactly instead
(store.schema.vector_index_online; retrieval's vector statement asks db.awaitIndex itself and
falls back on store.schema.INDEX_NOT_ONLINE), slower but never failing, and the merge pass leaves
blocks too large to compare exactly for its next run. `maintain` is the scheduled step (the
`index` job): it rebuilds only when the probe has become `[jobs] index_slowdown_max` times
slower than right after the last rebuild.
Audited, and measured before and after.
"""

from __future__ import annotations

import math
import statistics
import time
from typing import Any

from graphcons.core import audit
from graphcons.core.cypher import statements
from graphcons.core.db import Database
from graphcons.core.time import utcnow
from graphcons.store import schema

INDEX = schema.VECTOR_INDEX


def _dimensions(db: Database) -> int | None:
    rows = db.run("health/vector_index", name=INDEX)
    return rows[0]["dimensions"] if rows else None


def probe(db: Database, *, repeat: int = 20, k: int = 100) -> float | None:
    """Median milliseconds of one fixed vector-index query; None without the index."""
    dims = _dimensions(db)
    if not dims:
        return None
    vector = [1.0 / math.sqrt(dims)] * dims
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        db.run("health/vector_probe", name=INDEX, k=k, vector=vector)
        times.append((time.perf_counter() - t) * 1000)
    return round(statistics.median(times), 2)


def status(db: Database, *, repeat: int = 20) -> dict[str, Any]:
    """What `graphcons health` shows: name, state, population, probe latency."""
    rows = db.run("health/vector_index", name=INDEX)
    if not rows:
        return {"name": INDEX, "state": "missing", "probe_ms": None}
    row = rows[0]
    online = row["state"] == "ONLINE"
    return {"name": INDEX, "state": row["state"], "population_percent": row["population"],
            "dimensions": row["dimensions"], "probe_ms": probe(db, repeat=repeat) if online else None,
            "probe": "median of a fixed k=100 query"}


def rebuild(db: Database, *, by: str = "user", timeout_s: int = 3600) -> dict[str, Any]:
    """Drop and recreate the vector index from the stored embeddings; wait until ONLINE."""
    dims = _dimensions(db)
    if dims is None:
        raise RuntimeError(f"no vector index {INDEX!r}: run graphcons init")
    before = probe(db)
    t = time.perf_counter()
    db.run("health/vector_index_drop")
    for stmt in statements("schema/03_vector"):
        db.run_text(stmt, dimensions=dims)
    db.run("health/await_indexes", seconds=timeout_s)
    out = {"name": INDEX, "dimensions": dims, "probe_ms_before": before, "probe_ms_after": probe(db),
           "seconds": round(time.perf_counter() - t, 2)}
    audit.record(db, "vector_index_rebuild", [INDEX], at=utcnow(), by=by, **out)
    return out



HEALTHY_MS = 20.0  # a probe this fast is healthy whatever the baseline (noise on a busy machine)


def maintain(db: Database, *, slowdown_max: float, healthy_ms: float = HEALTHY_MS, by: str = "job") -> dict[str, Any]:
    """The scheduled step: probe the index and rebuild it when the probe has become more than
    `slowdown_max` times slower than right after the last rebuild (many small commits leave the
    index in many segments). The first probe of a store is recorded as its baseline."""
    state = status(db)
    if state["state"] != "ONLINE" or state["probe_ms"] is None:  # no store yet, or being built
        return {"state": state["state"], "probe_ms": None, "baseline_ms": None, "rebuilt": False}
    last = audit.read(db, target=INDEX, limit=1)
    details = last[0]["details"] if last else {}
    baseline = details.get("probe_ms_after", details.get("probe_ms"))
    out = {"state": "ONLINE", "probe_ms": state["probe_ms"], "baseline_ms": baseline, "rebuilt": False}
    if baseline is None:
        audit.record(db, "vector_index_baseline", [INDEX], at=utcnow(), by=by, probe_ms=state["probe_ms"])
    elif state["probe_ms"] > max(healthy_ms, slowdown_max * baseline):
        done = rebuild(db, by=by)
        out.update(rebuilt=True, probe_ms_after=done["probe_ms_after"], seconds=done["seconds"])
    return out
