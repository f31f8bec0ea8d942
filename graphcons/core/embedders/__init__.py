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


__all__ = ["Embedder", "make_embedder", "embedder_identity"]


def embedder_identity(cfg: EmbeddingConfig) -> tuple[str, int]:
    """(name, dimensions) of the configured embedder, known without loading the model."""
    if cfg.provider == "openai":
        return f"openai:{cfg.model}", int(cfg.dimensions or 0)
    from graphcons.core.embedders.minilm import MiniLMEmbedder

    return MiniLMEmbedder.name, MiniLMEmbedder.dimensions

