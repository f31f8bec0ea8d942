"""The tie weight of a memory (issue 15): label propagation's fixed tie-breaker, stored once.

tie = 1 + TIE_EPSILON * h(id) / 1000003, h a polynomial hash of the id's characters, in
[1, 1.001). Label propagation weighs each neighbour's vote by it, so equal votes fall to a
fixed pseudo-random neighbour instead of "smallest label" (which floods unweighted graphs:
football NMI 0.39 without it, 0.85 with it, see bench/clusters/results/). It depends on the id only,
so admission writes it once (`weight`, one property of `_create`), `backfill` sets it on
memories stored before it existed, and the scan's projection reads it instead of hashing
every id on every scan. A memory without it still projects the same value: the projection
computes the same hash in Cypher (cypher/clusters/project.cypher), so the two must agree
exactly (tests/test_scan_equivalence.py checks it on the real server).
"""

from __future__ import annotations

import string

from graphcons.core.db import Database

TIE_EPSILON = 1e-3
TIE_MODULUS = 1000003
# Memory ids use only these characters; any other character counts 0 (as in the Cypher).
ID_CHARS = {c: i + 1 for i, c in enumerate(string.ascii_letters + string.digits + "_.:-")}
BACKFILL_BATCH = 50_000


def _hash(memory_id: str) -> int:
    h = 0
    for c in memory_id:
        # Cypher splits a string into UTF-16 code units: a character outside the BMP is two.
        for _ in range(2 if ord(c) > 0xFFFF else 1):
            h = (h * 131 + ID_CHARS.get(c, 0)) % TIE_MODULUS
    return h


def weight(memory_id: str) -> float:
    """The stored `tie` of the memory with this id (same float as the Cypher formula)."""
    return 1.0 + TIE_EPSILON * _hash(memory_id) / float(TIE_MODULUS)


def params() -> dict:
    """What the Cypher formula needs (projection fallback, backfill)."""
    return {"tie_epsilon": TIE_EPSILON, "id_chars": ID_CHARS}


def backfill(db: Database, batch: int = BACKFILL_BATCH) -> int:
    """Set `tie` on every memory that lacks it (stores older than issue 15); returns how many."""
    total = 0
    while True:
        n = db.run("memory/tie_backfill", batch=batch, **params())[0]["n"]
        total += n
        if n < batch:
            return total
