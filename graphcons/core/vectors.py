"""Pairwise cosines as the server sends them: the upper triangle of vector.similarity.cosine,
which is (1 + cosine) / 2, row by row (`sims[i][j - i - 1]` for i < j). The merge pass's blocks
(merge/block_pairs) and retrieval's diversity step (retrieval/pair_cosines) both read them."""

from __future__ import annotations

import numpy as np


def cosine_matrix(sims: list[list[float]]) -> np.ndarray:
    """The full cosine matrix from the server's upper triangle of (1 + cosine) / 2; the diagonal
    is -inf (never a memory with itself)."""
    n = len(sims) + 1
    cos = np.full((n, n), -np.inf)
    upper = np.triu_indices(n, 1)  # row-major, the order the server lists them in
    vals = 2 * np.fromiter((s for row in sims for s in row), dtype=np.float64, count=len(upper[0])) - 1
    cos[upper] = vals  # as merge/candidates reports it: 2 * score - 1
    cos[upper[1], upper[0]] = vals
    return cos
