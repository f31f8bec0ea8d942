"""Pairwise cosines as the server sends them: the upper triangle of vector.similarity.cosine,
which is (1 + cosine) / 2, row by row (`sims[i][j - i - 1]` for i < j). The merge pass's blocks
(merge/block_pairs) and the synthesis prompt (synthesis/pair_cosines) both read them; retrieval's
diversity step computes them from the embeddings (`cosines`)."""

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


def cosines(embeddings: list[list[float] | None]) -> np.ndarray:
    """The full cosine matrix of some embeddings, computed here (issue 52) as `cosine_matrix` reads
    the server's: float32 like vector.similarity.cosine, the diagonal -inf, a missing embedding
    unrelated to every other (cosine 0)."""
    n = len(embeddings)
    dim = next((len(e) for e in embeddings if e), 1)
    vecs = np.zeros((n, dim), dtype=np.float32)
    for i, e in enumerate(embeddings):
        if e:
            vecs[i] = e
    norms = np.linalg.norm(vecs, axis=1)
    unit = np.divide(vecs, norms[:, None], out=np.zeros_like(vecs), where=norms[:, None] > 0)
    cos = (unit @ unit.T).astype(np.float64)
    np.fill_diagonal(cos, -np.inf)
    return cos
