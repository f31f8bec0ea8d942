"""Candidate blocking for the merge pass (issue 15): subjects are the blocks.

Merge compares two memories only within the same namespace AND subject, so the candidates of
a memory are its `top_k` nearest live memories by cosine inside its block (ties by id). The
pass asks the server for each block's pairwise similarities (merge/block_pairs: computed where
the embeddings are, with the vector index's own function, so the figures are the index's) and
picks every member's nearest here, instead of one vector-index query per memory. Exact where
the index is approximate: the index reads `search_width` neighbours over the whole store and
filters them, so a block member outside that window was never a candidate. Deterministic: the
same block gives the same pairs and figures on every run.

A block is quadratic (n * (n - 1) / 2 similarities); one larger than `EXACT_BLOCK_MAX` members
is searched through the vector index as before (merge.job.index_candidate_pairs).
"""

from __future__ import annotations

import numpy as np

from graphcons.core.vectors import cosine_matrix  # noqa: F401  (the blocks' matrix; merge.job reads it here)

EXACT_BLOCK_MAX = 2000


def top_k_pairs(cos: np.ndarray, order: list[str], k: int) -> list[tuple[int, int]]:
    """Every member's `k` nearest other members (highest cosine, ties by the smaller id in
    `order`, the members' ids), as pairs (i, j) of row numbers, each once, in (i, j) order."""
    n = len(order)
    if n < 2 or k < 1:
        return []
    rank = np.argsort(np.argsort(np.asarray(order, dtype=object), kind="stable"), kind="stable")
    found: set[tuple[int, int]] = set()
    for i in range(n):
        cols = np.lexsort((rank, -cos[i]))  # by cosine descending, then by id
        for j in cols[: min(k, n - 1)]:
            found.add((i, int(j)) if i < j else (int(j), i))
    return sorted(found)
