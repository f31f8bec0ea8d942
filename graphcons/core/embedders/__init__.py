"""Embedding providers, one module each behind `Embedder`; `make_embedder` picks one."""

from __future__ import annotations

from graphcons.core.config import EmbeddingConfig
from graphcons.core.embedders.base import Embedder


def make_embedder(cfg: EmbeddingConfig) -> Embedder:
    if cfg.provider == "openai":
        from graphcons.core.embedders.openai import OpenAIEmbedder

        return OpenAIEmbedder(cfg)
    from graphcons.core.embedders.minilm import MiniLMEmbedder

    return MiniLMEmbedder(batch_size=cfg.batch_size)


__all__ = ["Embedder", "make_embedder", "embedder_identity", "embedder_floor"]


def embedder_identity(cfg: EmbeddingConfig) -> tuple[str, int]:
    """(name, dimensions) of the configured embedder, known without loading the model."""
    if cfg.provider == "openai":
        return f"openai:{cfg.model}", int(cfg.dimensions or 0)
    from graphcons.core.embedders.minilm import MiniLMEmbedder

    return MiniLMEmbedder.name, MiniLMEmbedder.dimensions


# OpenAI models have no calibrated floor yet: run bench/floor.py with the model configured and
# add the result here (cosines of text-embedding-3 models sit lower than MiniLM's).
OPENAI_FLOORS: dict[str, tuple[float, str]] = {}


def embedder_floor(cfg: EmbeddingConfig) -> tuple[float | None, str]:
    """(floor, how it was calibrated) of the configured embedder; (None, ...) when not calibrated."""
    if cfg.provider == "openai":
        return OPENAI_FLOORS.get(cfg.model, (None, f"no calibrated floor for openai:{cfg.model}"))
    from graphcons.core.embedders.minilm import MiniLMEmbedder

    return MiniLMEmbedder.sim_floor, MiniLMEmbedder.sim_floor_calibration
