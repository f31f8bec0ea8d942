"""Calibrated similarity floors, one per embedding model: the cosine above which two memories
are similar enough to link (SIMILAR) and to be considered together. Part of an embedder's
identity; config reads them (`similarity_floor`) and an embedder module names its own here.
Recalibrate with bench/store/floor.py and add the result with how it was measured."""

from __future__ import annotations

# all-MiniLM-L6-v2 (offline default): the F1-optimal cosine separating STS-B train pairs scored
# >= 3 ("roughly equivalent, details differ": same topic) from the rest, F1 0.835 (P 0.78,
# R 0.90). MRPC train (paraphrase or not) peaks at 0.60; 0.82 kept only R 0.52 of the >= 3 pairs.
MINILM = (0.65, "F1-optimal cosine for STS-B train pairs scored >= 3 (bench/store/floor.py)")

# OpenAI models have no calibrated floor yet: run bench/store/floor.py with the model configured and
# add the result here (cosines of text-embedding-3 models sit lower than MiniLM's).
OPENAI: dict[str, tuple[float, str]] = {}


def floor_of(provider: str, model: str) -> tuple[float | None, str]:
    """(floor, how it was calibrated) of a configured embedder; (None, why) when not calibrated."""
    if provider == "openai":
        return OPENAI.get(model, (None, f"no calibrated floor for openai:{model}"))
    return MINILM
